// The harness drops Node's leak warning for the SDK's abort listeners in every process that makes
// SDK clients, from the moment it loads (benchmarks/lib/abort-warnings.mjs), and prints every
// other warning.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BENCH, ROOT } from '../../benchmarks/lib/service.ts';

const provoke = `
const signal = new AbortController().signal;
for (let i = 0; i < 12; i++) signal.addEventListener('abort', () => {});
const { EventEmitter } = await import('node:events');
const emitter = new EventEmitter();
for (let i = 0; i < 12; i++) emitter.on('data', () => {});
process.emitWarning('something else', 'OtherWarning');
await new Promise((resolve) => setTimeout(resolve, 50));
`;

function stderrOf(nodeArgs: string[], script: string): string {
  const { stderr, status } = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.is(status, 0, stderr);
  return stderr;
}

function assertFiltered(stderr: string): void {
  assert.not.match(stderr, /abort listeners added to \[AbortSignal\]/);
  assert.match(stderr, /MaxListenersExceededWarning: Possible EventEmitter memory leak detected/);
  assert.match(stderr, /OtherWarning: something else/);
}

test('warning filter :: without it Node prints the abort-listener warning (the test can see it)', () => {
  assert.match(stderrOf([], provoke), /abort listeners added to \[AbortSignal\]/);
});

test('warning filter :: lib/mcp.ts drops it as soon as it is loaded, before any client', () => {
  assertFiltered(stderrOf(['--import', 'tsx'], `import './benchmarks/lib/mcp.ts';\n${provoke}`));
});

test('warning filter :: the plain-node client scripts drop it too', () => {
  assertFiltered(stderrOf([], `import './benchmarks/lib/abort-warnings.mjs';\n${provoke}`));
  for (const script of ['mcp-load.mjs', 'plain-spawn.mjs']) {
    const text = fs.readFileSync(path.join(BENCH, script), 'utf8');
    const filter = text.indexOf("import './lib/abort-warnings.mjs'");
    assert.ok(filter !== -1 && filter < text.indexOf('@modelcontextprotocol/client'), `${script} imports the filter before the SDK`);
  }
});

test.run();
