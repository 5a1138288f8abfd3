// Which service the CLI talks to, and what it passes on of the service's error messages.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failure } from '../../lib/cli/mcp-commands.ts';
import { ask, findTarget } from '../../lib/cli/target.ts';
import type { ServiceRecord } from '../../lib/control/discovery.ts';
import { ControlError, type ControlHandlers } from '../../lib/control/protocol.ts';
import { socketPath, startControlServer } from '../../lib/control/server.ts';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-cli-target-'));
  tempDirs.push(dir);
  return dir;
}

const dir = tempDir();
const location = { file: path.join(dir, 'mcp.json'), dir };
const fail = (message: string) => () => {
  throw new ControlError('invalid_config', message);
};
const handlers: ControlHandlers = {
  status: () => ({ live: true }),
  restart: fail(`Server 'x' not found in ${location.file}`),
  reload: fail(`${location.file} at mcpServers.a.url: expected an absolute URL whose scheme is http or https, found https://user:hunter2@example.com/mcp?token=abc123`),
  tools: fail('unused'),
};
const server = await startControlServer(socketPath(dir), handlers);
const target = { socket: socketPath(dir) };

test.after(async () => {
  await server.close();
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

test('target :: ask: error messages keep paths and URLs (operator channel, decisions §4)', async () => {
  assert.equal(await ask(target, 'restart', { server: 'x' }), { kind: 'error', code: 'invalid_config', message: `Server 'x' not found in ${location.file}` });
});

test('target :: ask: error messages lose their credentials', async () => {
  assert.equal(await ask(target, 'reload', {}), {
    kind: 'error',
    code: 'invalid_config',
    message: `${location.file} at mcpServers.a.url: expected an absolute URL whose scheme is http or https, found https://[REDACTED]@example.com/mcp?token=[REDACTED]`,
  });
});

test('target :: ask: no service is `none`', async () => {
  assert.equal(await ask({ socket: socketPath(tempDir()) }, 'status', {}), { kind: 'none' });
});

test('target :: ask: a control-bus failure keeps its catalogue code; the command exits as the catalogue says', async () => {
  // A socket that answers with something that is not a control response.
  const garbage = path.join(tempDir(), 'garbage.sock');
  const listener = net.createServer((socket) => socket.end('not json\n'));
  await new Promise<void>((resolve) => listener.listen(garbage, resolve));
  try {
    const answer = await ask({ socket: garbage }, 'status', {});
    assert.equal(answer.kind === 'error' && answer.code, 'bad_response');
    assert.is(failure(answer as { code: string; message: string }).code, 1);
    assert.is(failure({ code: 'bad_tool_name', message: 'x' }).code, 2, 'a usage code exits 2');
  } finally {
    listener.close();
  }
});

const record = (pid: number, root: string): ServiceRecord => ({
  pid,
  configFile: path.join(root, 'examples', 'mcp.json'),
  configDir: path.join(root, 'examples'),
  socket: path.join(root, 'examples', 'agent.sock'),
  address: 'http://127.0.0.1:3050',
  startedAt: '2026-11-22T01:00:00.000Z',
});
const NO_ENV = {};

test('target :: the flags and AGENT_CONFIG* name the location; an announced service of another file is not used', async () => {
  const find = async () => [record(77, tempDir())];
  const home = tempDir();
  const cases: [Record<string, string>, Record<string, string>, string][] = [
    [{ config: path.join(dir, 'x.json') }, NO_ENV, dir],
    [{ 'config-dir': dir }, NO_ENV, dir],
    [{}, { AGENT_CONFIG: path.join(dir, 'x.json') }, dir],
    [{}, { AGENT_CONFIG_DIR: dir }, dir],
  ];
  for (const [flags, env, expected] of cases) {
    const found = await findTarget(flags, env, { homedir: home, find });
    assert.equal(found, { location: { file: found.location.file, dir: expected }, socket: socketPath(expected), stateDir: expected, note: '' });
  }
});

test('target :: --state-dir or AGENT_STATE_DIR names where the control socket is; announced services are not looked at', async () => {
  const find = async () => assert.unreachable('find must not be called') as never;
  const state = tempDir();
  for (const [flags, env] of [
    [{ config: path.join(dir, 'x.json'), 'state-dir': state }, NO_ENV],
    [{ 'config-dir': dir }, { AGENT_STATE_DIR: state }],
  ] as [Record<string, string>, Record<string, string>][]) {
    const found = await findTarget(flags, env, { homedir: tempDir(), find });
    assert.equal(found, { location: { file: found.location.file, dir }, socket: socketPath(state), stateDir: state, note: '' });
  }
});

test('target :: a named configuration whose service keeps its state elsewhere: the announced service of that file, no note', async () => {
  const root = tempDir();
  const state = tempDir();
  const own = { ...record(4343, root), socket: path.join(state, 'agent.sock'), stateDir: state };
  const found = await findTarget({ config: own.configFile }, NO_ENV, { homedir: tempDir(), find: async () => [record(1, tempDir()), own] });
  assert.equal(found, { location: { file: own.configFile, dir: own.configDir }, socket: own.socket, stateDir: state, note: '' }, 'its state directory, where backups go');
});

test('target :: a service at the default location is used as is', async () => {
  const home = tempDir();
  const defaultDir = path.join(home, '.config', 'agent');
  fs.mkdirSync(defaultDir, { recursive: true });
  const running = await startControlServer(socketPath(defaultDir), handlers);
  try {
    const found = await findTarget({}, NO_ENV, { homedir: home, find: async () => [record(1, tempDir())] });
    assert.equal(found, { location: { file: path.join(defaultDir, 'mcp.json'), dir: defaultDir }, socket: socketPath(defaultDir), stateDir: defaultDir, note: '' });
  } finally {
    await running.close();
  }
});

test('target :: nothing at the default location: the one announced service, with a note', async () => {
  const home = tempDir();
  const root = tempDir();
  const one = record(4242, root);
  const found = await findTarget({}, NO_ENV, { homedir: home, find: async () => [one] });
  assert.equal(found, {
    location: { file: one.configFile, dir: one.configDir },
    socket: one.socket,
    stateDir: one.configDir,
    note: `agent: note: no service runs for the default configuration directory ${home}/.config/agent; using the running service (pid 4242, ${one.configFile})\n`,
  });
});

test('target :: nothing at the default location and several announced: the default, with a note listing them', async () => {
  const home = tempDir();
  const [a, b] = [record(1001, tempDir()), record(1002, tempDir())];
  const found = await findTarget({}, NO_ENV, { homedir: home, find: async () => [a!, b!] });
  const defaultDir = path.join(home, '.config', 'agent');
  assert.equal(found, {
    location: { file: path.join(defaultDir, 'mcp.json'), dir: defaultDir },
    socket: socketPath(defaultDir),
    stateDir: defaultDir,
    note: `agent: note: no service runs for the default configuration directory ${defaultDir}; 2 services run elsewhere (pid 1001, ${a!.configFile}; pid 1002, ${b!.configFile}): choose one with --config or --config-dir\n`,
  });
});

test('target :: nothing anywhere: the default location without a note; a failed look-up is noted', async () => {
  const home = tempDir();
  assert.is((await findTarget({}, NO_ENV, { homedir: home, find: async () => [] })).note, '');
  const failed = await findTarget({}, NO_ENV, {
    homedir: home,
    find: async () => {
      throw new Error('Refusing to use the runtime directory /tmp/agent-0: it belongs to another user (uid 12345)');
    },
  });
  assert.is(failed.location.dir, path.join(home, '.config', 'agent'));
  assert.is(failed.note, 'agent: note: could not look for services running elsewhere: Refusing to use the runtime directory /tmp/agent-0: it belongs to another user (uid 12345)\n');
});

// Found by an outside check: against a stopped service, `agent mcp status` waited 10.5 s while
// saying it had waited 5,000 ms (the look-up asked, then the command asked again).
test('target :: a service that takes the connection and never answers is asked once: the command gets the look-up\'s timeout', async () => {
  const dir = tempDir();
  const silent = net.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(socketPath(dir), resolve));
  try {
    const found = await findTarget({ 'config-dir': dir }, NO_ENV, { homedir: tempDir(), find: async () => [] });
    assert.is(found.unanswered?.kind, 'error');
    assert.match(found.unanswered?.kind === 'error' ? found.unanswered.message : '', /did not answer within 5000 ms/);
    assert.is(await ask(found, 'status', {}), found.unanswered, 'the same answer, not a second wait');
  } finally {
    silent.close();
  }
});

test.run();
