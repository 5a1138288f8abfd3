import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../lib/config/errors.ts';
import { EMPTY_CONFIG_TEXT, ensureConfigFile, loadConfig, type LoadOutcome, readRuntimeScope } from '../../lib/config/load.ts';
import type { ConfigLocation } from '../../lib/config/paths.ts';
import type { LoadedConfig, StdioSpec } from '../../lib/config/types.ts';

const tempDirs: string[] = [];
const PARENT = { HOME: '/home/ann', PATH: '/usr/bin', SHARED: 'from-parent' };

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-config-load-'));
  tempDirs.push(dir);
  return dir;
}

function writeConfig(dir: string, content: unknown, name = 'mcp.json'): ConfigLocation {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return { file, dir };
}

function loaded(outcome: LoadOutcome): LoadedConfig {
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.problems.map(formatProblem).join('\n'));
  return outcome.config;
}

function problems(outcome: LoadOutcome): string[] {
  assert.not.ok(outcome.ok, 'expected the load to fail');
  return outcome.ok ? [] : outcome.problems.map(formatProblem);
}

test.after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('load :: valid file', async () => {
  const dir = tempDir();
  const location = writeConfig(dir, {
    mcpServers: {
      files: { command: 'node', args: ['server.js'], tags: ['local'] },
      web: { url: 'https://mcp.example.test/mcp' },
    },
  });
  const config = loaded(await loadConfig(location, PARENT, 'linux'));
  assert.is(config.file, location.file);
  assert.is(config.dir, dir);
  assert.equal(config.warnings, []);
  assert.equal(config.servers.map((s) => [s.name, s.spec?.type, s.problems]), [
    ['files', 'stdio', undefined],
    ['web', 'http', undefined],
  ]);
  assert.equal((config.servers[0]?.spec as StdioSpec).env, { HOME: '/home/ann', PATH: '/usr/bin' });
});

test('load :: CRLF line ends and a $schema key are fine', async () => {
  const dir = tempDir();
  const location = writeConfig(dir, '{\r\n  "$schema": "x",\r\n  "mcpServers": {\r\n    "a": { "command": "node" }\r\n  }\r\n}\r\n');
  assert.equal(loaded(await loadConfig(location, PARENT, 'linux')).servers.map((s) => s.name), ['a']);
});

const syntaxCases: Array<[title: string, text: string, line: number, column: number, message: string]> = [
  ['trailing comma', '{\n  "mcpServers": {\n    "a": { "command": "node", }\n  }\n}\n', 3, 31, 'expected valid JSON (PropertyNameExpected), found "}"'],
  ['missing comma', '{\n  "mcpServers": {\n    "a": { "command": "node" }\n    "b": {}\n  }\n}\n', 4, 5, 'expected valid JSON (CommaExpected), found "\\"b\\""'],
  ['bad literal with CRLF line ends', '{\r\n  "mcpServers": {\r\n    "a": tru\r\n  }\r\n}', 3, 10, 'expected valid JSON (InvalidSymbol), found "tru"'],
  ['unterminated document', '{"mcpServers": {}', 1, 18, 'expected valid JSON (CloseBraceExpected), found the end of the file'],
  ['empty file', '', 1, 1, 'expected valid JSON (ValueExpected), found the end of the file'],
  ['comments are not JSON', '// servers\n{"mcpServers": {}}', 1, 1, 'expected valid JSON (InvalidCommentToken), found "// servers"'],
  ['trailing garbage', '{"mcpServers": {}}\nx', 2, 1, 'expected valid JSON (InvalidSymbol), found "x"'],
  ['an unquoted value under a secret\'s key is not echoed', '{"mcpServers": {"a": {"command": "node", "env": {"API_KEY": supersecret123}}}}', 1, 61, "expected valid JSON (InvalidSymbol), found a value under a secret's key (not shown)"],
  ['what is found inside args is not echoed (a flag\'s value may be a secret)', '{"mcpServers": {"a": {"command": "node", "args": ["--token" "argTokSECRET10"]}}}', 1, 61, 'expected valid JSON (CommaExpected), found text inside "args" (not shown: it may hold a secret)'],
  ['what is found inside an env array is not echoed', '{"mcpServers": {"a": {"command": "node", "env": ["MY_CREDENTIAL=credSECRET ]}}}', 1, 50, 'expected valid JSON (UnexpectedEndOfString), found text inside "env" (not shown: it may hold a secret)'],
];

for (const [title, text, line, column, message] of syntaxCases) {
  test(`load :: syntax error ${title} reports line and column`, async () => {
    const location = writeConfig(tempDir(), text);
    const outcome = await loadConfig(location, PARENT, 'linux');
    assert.not.ok(outcome.ok);
    if (outcome.ok) return;
    assert.is(outcome.problems.length, 1);
    const [problem] = outcome.problems;
    assert.is(problem?.line, line);
    assert.is(problem?.column, column);
    assert.is(problem?.path, '');
    assert.is(formatProblem(problem!), `${location.file}:${line}:${column}: ${message}`);
  });
}

test('load :: missing file is reported, not thrown', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'mcp.json');
  assert.equal(problems(await loadConfig({ file, dir }, PARENT, 'linux')), [`${file}: expected a readable file, found no such file`]);
});

test('load :: a directory in place of the file is reported', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'mcp.json');
  fs.mkdirSync(file);
  assert.equal(problems(await loadConfig({ file, dir }, PARENT, 'linux')), [`${file}: expected a readable file, found a directory`]);
});

if (typeof process.getuid === 'function' && process.getuid() !== 0) {
  test('load :: unreadable file (permission denied) is reported', async () => {
    const location = writeConfig(tempDir(), { mcpServers: {} });
    fs.chmodSync(location.file, 0o000);
    try {
      assert.equal(problems(await loadConfig(location, PARENT, 'linux')), [`${location.file}: expected a readable file, found permission denied`]);
    } finally {
      fs.chmodSync(location.file, 0o600);
    }
  });
}

test('load :: invalid document is reported with its path', async () => {
  const location = writeConfig(tempDir(), { mcpServers: [] });
  assert.equal(problems(await loadConfig(location, PARENT, 'linux')), [`${location.file} at mcpServers: expected an object, found an empty array`]);
});

test('load :: .env beside the file is the Runtime Scope and never touches process.env', async () => {
  const dir = tempDir();
  const key = `AGENT_TEST_SCOPE_${process.pid}`;
  assert.is(process.env[key], undefined);
  fs.writeFileSync(path.join(dir, '.env'), `${key}=from-dotenv\nSHARED=from-dotenv\n# comment\nQUOTED="a b"\n`);
  const location = writeConfig(dir, {
    mcpServers: {
      a: { command: 'node', args: [`\${${key}}`, '$SHARED', '${QUOTED}'], env: { FROM_SCOPE: `$${key}` } },
      b: { url: `https://h.test/\${${key}}` },
    },
  });
  const envBefore = { ...process.env };
  const config = loaded(await loadConfig(location, PARENT, 'linux'));
  const a = config.servers[0]?.spec as StdioSpec;
  assert.equal(a.args, ['from-dotenv', 'from-parent', 'a b']);
  assert.equal(a.env, { HOME: '/home/ann', PATH: '/usr/bin', FROM_SCOPE: 'from-dotenv' });
  assert.is(config.servers[1]?.spec?.type, 'http');
  assert.is((config.servers[1]?.spec as { url: string }).url, 'https://h.test/from-dotenv');
  assert.is(process.env[key], undefined);
  assert.equal({ ...process.env }, envBefore);
});

test('load :: without a .env an undefined reference makes the server invalid', async () => {
  const location = writeConfig(tempDir(), { mcpServers: { a: { command: '${AGENT_TEST_NOWHERE_VAR}' } } });
  const config = loaded(await loadConfig(location, PARENT, 'linux'));
  assert.equal(config.servers[0]?.problems?.map(formatProblem), [
    `${location.file} at mcpServers.a.command: expected the variable \`AGENT_TEST_NOWHERE_VAR\` to be defined in the environment or the Runtime Scope .env, found it undefined`,
  ]);
});

test('load :: .env is read beside the selected file, not from the working directory', async () => {
  const configDir = tempDir();
  const other = tempDir();
  fs.writeFileSync(path.join(other, '.env'), 'ONLY_HERE=beside-file\n');
  fs.writeFileSync(path.join(configDir, '.env'), 'ONLY_HERE=in-config-dir\n');
  const location = { file: writeConfig(other, { mcpServers: { a: { command: '$ONLY_HERE' } } }, 'servers.json').file, dir: configDir };
  const config = loaded(await loadConfig(location, PARENT, 'linux'));
  assert.is((config.servers[0]?.spec as StdioSpec).command, 'beside-file');
});

test('load :: unreadable .env is reported', async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, '.env'));
  const location = writeConfig(dir, { mcpServers: {} });
  assert.equal(problems(await loadConfig(location, PARENT, 'linux')), [`${path.join(dir, '.env')}: expected a readable file, found a directory`]);
});

test('load :: readRuntimeScope of a directory without .env is empty', async () => {
  const dir = tempDir();
  assert.equal(await readRuntimeScope(path.join(dir, 'mcp.json')), { ok: true, values: {}, text: '' });
});

test('load :: ensureConfigFile creates the directory and an empty valid file', async () => {
  const root = tempDir();
  const dir = path.join(root, 'nested', 'agent');
  const location = { file: path.join(dir, 'mcp.json'), dir };
  assert.is(await ensureConfigFile(location), true);
  const text = fs.readFileSync(location.file, 'utf8');
  assert.is(text, EMPTY_CONFIG_TEXT);
  assert.equal(JSON.parse(text), { mcpServers: {} });
  assert.equal(loaded(await loadConfig(location, PARENT, 'linux')).servers, []);
});

test('load :: ensureConfigFile does not overwrite an existing file', async () => {
  const dir = tempDir();
  const content = '{ "mcpServers": { "mine": { "command": "node" } } }\n';
  const location = writeConfig(dir, content);
  assert.is(await ensureConfigFile(location), false);
  assert.is(fs.readFileSync(location.file, 'utf8'), content);
});

test('load :: ensureConfigFile twice creates once', async () => {
  const dir = path.join(tempDir(), 'cfg');
  const location = { file: path.join(dir, 'mcp.json'), dir };
  assert.is(await ensureConfigFile(location), true);
  fs.writeFileSync(location.file, '{"mcpServers": {"x": {"url": "http://h.test"}}}');
  assert.is(await ensureConfigFile(location), false);
  assert.is(fs.readFileSync(location.file, 'utf8'), '{"mcpServers": {"x": {"url": "http://h.test"}}}');
});

test('load :: ensureConfigFile leaves an existing invalid file alone', async () => {
  const location = writeConfig(tempDir(), '{ broken');
  assert.is(await ensureConfigFile(location), false);
  assert.is(fs.readFileSync(location.file, 'utf8'), '{ broken');
});

test.run();
