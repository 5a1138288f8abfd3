// The configuration watch: one call per burst of changes to mcp.json or .env, other files
// ignored; out of file descriptors, it still sees a change, and what fails (re-reading the
// directory needs a descriptor) is reported, not fatal.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchConfig } from '../../lib/main/config-watch.ts';
import { tempDir } from '../helpers/service.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/main/watch-out-of-fds.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('config watch :: a burst of writes to mcp.json and .env is one call; other files none', async () => {
  const dir = tempDir('agent-config-watch-');
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, '{}');
  let calls = 0;
  const errors: Error[] = [];
  const watcher = watchConfig(file, () => void calls++, (error) => void errors.push(error), 100);
  try {
    await sleep(400);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    await sleep(500);
    assert.is(calls, 0, 'another file in the directory');
    fs.writeFileSync(`${file}.tmp`, '{"mcpServers":{}}');
    fs.renameSync(`${file}.tmp`, file);
    fs.writeFileSync(path.join(dir, '.env'), 'A=1\n');
    for (let i = 0; i < 50 && calls === 0; i++) await sleep(50);
    await sleep(400);
    assert.is(calls, 1, 'one reload for the burst');
    assert.equal(errors, []);
  } finally {
    await watcher.close();
  }
});

test('config watch :: a configuration directory removed and made again is watched again', async () => {
  const parent = tempDir('agent-config-watch-');
  const dir = path.join(parent, 'cfg');
  fs.mkdirSync(dir);
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, '{}');
  let calls = 0;
  const watcher = watchConfig(file, () => void calls++, () => undefined, 100);
  try {
    await sleep(400);
    fs.rmSync(dir, { recursive: true });
    for (let i = 0; i < 40 && calls === 0; i++) await sleep(50);
    assert.is(calls, 1, 'the removal is a change (the reload reports the missing file)');
    await sleep(300);
    fs.mkdirSync(dir);
    fs.writeFileSync(file, '{"mcpServers":{}}');
    for (let i = 0; i < 60 && calls === 1; i++) await sleep(50);
    assert.is(calls, 2, 'the new file is seen');
    await sleep(400);
    fs.writeFileSync(file, '{"mcpServers":{"a":{"command":"x"}}}');
    for (let i = 0; i < 60 && calls === 2; i++) await sleep(50);
    assert.is(calls, 3, 'and so is the next write');
  } finally {
    await watcher.close();
  }
});

test('config watch :: out of file descriptors, a replaced mcp.json is still seen; errors are reported and the process lives on', async () => {
  const dir = tempDir('agent-config-watch-');
  fs.writeFileSync(path.join(dir, 'mcp.json'), '{}');
  const { stdout, code } = await new Promise<{ stdout: string; code: number }>((resolve) => {
    const script = `ulimit -n 80 && exec "${process.execPath}" --import tsx "${FIXTURE}" "${dir}"`;
    execFile('bash', ['-c', script], { timeout: 30_000 }, (error, stdout, stderr) => resolve({ stdout: stdout + stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 }));
  });
  assert.is(code, 0, stdout);
  const report = JSON.parse(stdout.trim().split('\n').pop()!) as { changes: number; errors: number; codes: string[] };
  assert.ok(report.changes >= 1, stdout);
  assert.ok(report.codes.every((c) => c === 'EMFILE'), stdout);
});

test.run();
