import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callControl, ControlTimeoutError, NoServiceError } from '../../lib/control/client.ts';
import { ControlError, type ControlHandlers, type ControlResponse, MAX_CONTROL_LINE_BYTES, parseControlRequest } from '../../lib/control/protocol.ts';
import {
  configDirHash,
  ControlSocketInUseError,
  MAX_SOCKET_PATH_BYTES,
  resolveSocketPath,
  socketPath,
  startControlServer,
} from '../../lib/control/server.ts';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-ctl-'));
  tempDirs.push(dir);
  return dir;
}
test.after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const calls: { op: string; args: unknown }[] = [];
const handlers: ControlHandlers = {
  status(args) {
    calls.push({ op: 'status', args });
    return { servers: [{ name: 'files', state: 'connected' }] };
  },
  async restart(args) {
    calls.push({ op: 'restart', args });
    if (args.server === 'ghost') throw new ControlError('unknown_server', "Server 'ghost' not found");
    if (args.server === 'idle') throw new ControlError('not_running', "Server 'idle' is stopped");
    if (args.server === 'boom') throw new Error('kaboom');
    return { restarted: args.server };
  },
  reload() {
    calls.push({ op: 'reload', args: {} });
    return undefined;
  },
  tools(args) {
    calls.push({ op: 'tools', args });
    return { server: args.server, status: 'connected', tools: [], unresolved: [] };
  },
};

// Sends raw text on one connection and collects `count` response lines (or until the peer closes).
function rawExchange(file: string, text: string | Buffer, count: number): Promise<{ responses: ControlResponse[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(file);
    const responses: ControlResponse[] = [];
    let buffer = '';
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        responses.push(JSON.parse(buffer.slice(0, newline)) as ControlResponse);
        buffer = buffer.slice(newline + 1);
      }
      if (responses.length >= count) {
        socket.destroy();
        resolve({ responses, closed: false });
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may reset a connection it closes while we are still writing.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => resolve({ responses, closed: true }));
  });
}

// A socket file left behind by a process that was SIGKILLed while listening on it.
async function makeStaleSocket(file: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(process.argv[1], () => process.stdout.write('ready\\n'))`, file],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`listener exited early (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  assert.ok(fs.lstatSync(file).isSocket(), 'the killed listener left its socket file');
}

// --- socketPath ---

test('control-socket :: short config dir gets <configDir>/agent.sock', () => {
  assert.is(resolveSocketPath({ configDir: '/home/ann/.config/agent', platform: 'linux', tmpdir: '/tmp', writable: true }), '/home/ann/.config/agent/agent.sock');
  assert.is(resolveSocketPath({ configDir: '/Users/ann/.config/agent', platform: 'darwin', tmpdir: '/var/t', writable: true }), '/Users/ann/.config/agent/agent.sock');
});

test('control-socket :: a path over 103 bytes falls back to <tmpdir>/agent-<hash>.sock', () => {
  const hash = configDirHash('/x');
  assert.match(hash, /^[0-9a-f]{16}$/);
  // '/' + dir + '/agent.sock' (11 bytes): a dir of 92 bytes gives exactly 103, 93 gives 104.
  const fits = `/${'a'.repeat(91)}`;
  const tooLong = `/${'a'.repeat(92)}`;
  assert.is(Buffer.byteLength(path.posix.join(fits, 'agent.sock')), MAX_SOCKET_PATH_BYTES);
  assert.is(resolveSocketPath({ configDir: fits, platform: 'linux', tmpdir: '/tmp', writable: true }), `${fits}/agent.sock`);
  assert.is(resolveSocketPath({ configDir: tooLong, platform: 'linux', tmpdir: '/tmp', writable: true }), `/tmp/agent-${configDirHash(tooLong)}.sock`);
  // Bytes, not characters: 46 two-byte characters make 92 bytes.
  const multibyte = `/${'é'.repeat(46)}`;
  assert.is(resolveSocketPath({ configDir: multibyte, platform: 'linux', tmpdir: '/tmp', writable: true }), `/tmp/agent-${configDirHash(multibyte)}.sock`);
});

test('control-socket :: a non-writable config dir falls back to the tmpdir', () => {
  const dir = '/etc/agent';
  assert.is(resolveSocketPath({ configDir: dir, platform: 'linux', tmpdir: '/var/tmp', writable: false }), `/var/tmp/agent-${configDirHash(dir)}.sock`);
});

test('control-socket :: the hash is stable per dir and differs between dirs', () => {
  const a = resolveSocketPath({ configDir: '/srv/a', platform: 'linux', tmpdir: '/tmp', writable: false });
  assert.is(resolveSocketPath({ configDir: '/srv/a', platform: 'linux', tmpdir: '/tmp', writable: false }), a);
  assert.is.not(resolveSocketPath({ configDir: '/srv/b', platform: 'linux', tmpdir: '/tmp', writable: false }), a);
  assert.is(configDirHash('/srv/a'), configDirHash('/srv/a'));
});

test('control-socket :: Windows uses a named pipe from the same hash', () => {
  const dir = 'C:\\Users\\ann\\AppData\\Roaming\\agent';
  const pipe = `\\\\.\\pipe\\agent-${configDirHash(dir)}`;
  assert.is(resolveSocketPath({ configDir: dir, platform: 'win32', tmpdir: 'C:\\Temp', writable: true }), pipe);
  assert.is(resolveSocketPath({ configDir: dir, platform: 'win32', tmpdir: 'C:\\Temp', writable: false }), pipe);
  assert.ok(pipe.startsWith('\\\\.\\pipe\\agent-'));
});

test('control-socket :: socketPath checks the directory on disk', () => {
  const dir = tempDir();
  assert.is(socketPath(dir, 'linux', '/tmp'), path.join(dir, 'agent.sock'));
  // A directory that does not exist yet is created by the service: its writable parent decides.
  assert.is(socketPath(path.join(dir, 'new', 'agent'), 'linux', '/tmp'), path.join(dir, 'new', 'agent', 'agent.sock'));
  // A regular file where the directory should be cannot hold a socket.
  const file = path.join(dir, 'file');
  fs.writeFileSync(file, '');
  assert.is(socketPath(file, 'linux', '/tmp'), `/tmp/agent-${configDirHash(file)}.sock`);
});

// --- protocol ---

test('control-socket :: parseControlRequest validates the request', () => {
  assert.equal(parseControlRequest('{"id":1,"op":"status","args":{}}'), { ok: true, request: { id: 1, op: 'status', args: {} } });
  assert.equal(parseControlRequest('{"id":2,"op":"reload"}'), { ok: true, request: { id: 2, op: 'reload', args: {} } });
  const cases: [string, number | null][] = [
    ['nope', null],
    ['[1]', null],
    ['{"op":"status"}', null],
    ['{"id":"1","op":"status"}', null],
    ['{"id":3,"op":"explode","args":{}}', 3],
    ['{"id":4,"op":"status","args":[]}', 4],
    ['{"id":5,"op":"restart","args":{}}', 5],
    ['{"id":6,"op":"restart","args":{"server":7}}', 6],
  ];
  for (const [line, id] of cases) {
    const parsed = parseControlRequest(line);
    assert.is(parsed.ok, false, line);
    if (parsed.ok) continue;
    assert.is(parsed.response.id, id, line);
    assert.is(parsed.response.ok, false);
    if (!parsed.response.ok) assert.is(parsed.response.error.code, 'bad_request', line);
  }
});

// --- server and client over real sockets ---

test('control-socket :: status, restart and reload round trip', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const server = await startControlServer(file, handlers);
  try {
    calls.length = 0;
    assert.is(server.path, file);
    const status = await callControl(file, 'status', {});
    assert.type(status.id, 'number');
    assert.equal(status, { id: status.id, ok: true, result: { servers: [{ name: 'files', state: 'connected' }] } });
    const restart = await callControl(file, 'restart', { server: 'files' });
    assert.is.not(restart.id, status.id);
    assert.equal(restart, { id: restart.id, ok: true, result: { restarted: 'files' } });
    // A handler returning nothing still answers with a result (null).
    const reload = await callControl(file, 'reload');
    assert.equal(reload, { id: reload.id, ok: true, result: null });
    assert.equal(calls, [
      { op: 'status', args: {} },
      { op: 'restart', args: { server: 'files' } },
      { op: 'reload', args: {} },
    ]);
  } finally {
    await server.close();
  }
});

test('control-socket :: ControlError becomes {ok:false, error}; other errors become internal', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const server = await startControlServer(file, handlers);
  try {
    assert.equal(await strip(callControl(file, 'restart', { server: 'ghost' })), {
      ok: false,
      error: { code: 'unknown_server', message: "Server 'ghost' not found" },
    });
    assert.equal(await strip(callControl(file, 'restart', { server: 'idle' })), {
      ok: false,
      error: { code: 'not_running', message: "Server 'idle' is stopped" },
    });
    assert.equal(await strip(callControl(file, 'restart', { server: 'boom' })), { ok: false, error: { code: 'internal', message: 'kaboom' } });
    const missing = await callControl(file, 'restart', {});
    assert.is(!missing.ok && missing.error.code, 'bad_request');
  } finally {
    await server.close();
  }

  async function strip(promise: Promise<ControlResponse>): Promise<unknown> {
    const { id: _id, ...rest } = await promise;
    return rest;
  }
});

test('control-socket :: several requests on one connection are answered by id', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const server = await startControlServer(file, handlers);
  try {
    const text = [
      '{"id":10,"op":"status","args":{}}',
      '{"id":11,"op":"restart","args":{"server":"ghost"}}',
      '{"id":12,"op":"explode","args":{}}',
      'this is not json',
      '{"id":13,"op":"reload","args":{}}',
    ].join('\n');
    // The last line has no newline: it is answered once the client ends its side.
    const { responses } = await new Promise<{ responses: ControlResponse[] }>((resolve, reject) => {
      const socket = net.createConnection(file);
      let buffer = '';
      socket.on('connect', () => socket.end(text));
      socket.on('data', (chunk) => (buffer += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () =>
        resolve({
          responses: buffer
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as ControlResponse),
        }),
      );
    });
    assert.is(responses.length, 5);
    const byId = new Map(responses.map((r) => [r.id, r]));
    const ok10 = byId.get(10);
    assert.ok(ok10?.ok);
    const r11 = byId.get(11);
    assert.is(r11 && !r11.ok && r11.error.code, 'unknown_server');
    const r12 = byId.get(12);
    assert.is(r12 && !r12.ok && r12.error.code, 'bad_request');
    assert.match(r12 && !r12.ok ? r12.error.message : '', /explode/);
    const r13 = byId.get(13);
    assert.equal(r13, { id: 13, ok: true, result: null });
    const malformed = byId.get(null);
    assert.is(malformed && !malformed.ok && malformed.error.code, 'bad_request');
  } finally {
    await server.close();
  }
});

test('control-socket :: unknown op and malformed line answer bad_request', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const server = await startControlServer(file, handlers);
  try {
    const unknown = await rawExchange(file, '{"id":7,"op":"shutdown","args":{}}\n', 1);
    assert.is(unknown.responses[0]?.id, 7);
    const u = unknown.responses[0];
    assert.is(u && !u.ok && u.error.code, 'bad_request');

    const malformed = await rawExchange(file, '{"id":8,"op":\n', 1);
    const m = malformed.responses[0];
    assert.is(m?.id, null);
    assert.is(m && !m.ok && m.error.code, 'bad_request');
    // The connection survives a malformed line.
    const after = await rawExchange(file, 'garbage\n{"id":9,"op":"status","args":{}}\n', 2);
    assert.is(after.responses[1]?.id, 9);
    assert.is(after.responses[1]?.ok, true);
  } finally {
    await server.close();
  }
});

test('control-socket :: a line over 1 MiB closes the connection', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const server = await startControlServer(file, handlers);
  try {
    const huge = Buffer.alloc(MAX_CONTROL_LINE_BYTES + 16, 'a');
    const result = await rawExchange(file, huge, 1);
    assert.is(result.closed, true);
    assert.is(result.responses.length, 0);
    // The server still serves other connections.
    const status = await callControl(file, 'status', {});
    assert.is(status.ok, true);
  } finally {
    await server.close();
  }
});

test('control-socket :: connections over the cap are closed and logged once; the others are served', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const warnings: string[] = [];
  const log = { debug: () => undefined, error: () => undefined, warn: (_fields: unknown, msg: string) => void warnings.push(msg) } as never;
  const server = await startControlServer(file, handlers, log, { maxConnections: 4 });
  const held: net.Socket[] = [];
  try {
    for (let i = 0; i < 4; i++) {
      const socket = net.createConnection(file);
      await new Promise((r) => socket.once('connect', r));
      held.push(socket);
    }
    // Over the cap: the server closes these at once.
    const extra = await Promise.all([1, 2, 3].map(() => rawExchange(file, '{"id":1,"op":"status","args":{}}\n', 1)));
    assert.ok(extra.every((r) => r.closed && r.responses.length === 0), JSON.stringify(extra));
    assert.equal(warnings, ['control bus: 4 connections are open; refused 1 more'], 'one log line, not one per connection');
    held.pop()!.destroy();
    await new Promise((r) => setTimeout(r, 50));
    assert.is((await callControl(file, 'status', {})).ok, true, 'a freed place is usable again');
  } finally {
    for (const socket of held) socket.destroy();
    await server.close();
  }
});

test('control-socket :: the socket file has mode 0600 and close removes it', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'sub', 'agent.sock');
  const previous = process.umask(0o000);
  let server;
  try {
    server = await startControlServer(file, handlers);
  } finally {
    process.umask(previous);
  }
  const stat = fs.lstatSync(file);
  assert.ok(stat.isSocket());
  assert.is((stat.mode & 0o777).toString(8), '600');
  await server.close();
  await server.close();
  assert.is(fs.existsSync(file), false);
});

test('control-socket :: a stale socket file from a crashed service is replaced', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  await makeStaleSocket(file);
  const server = await startControlServer(file, handlers);
  try {
    const status = await callControl(file, 'status', {});
    assert.is(status.ok, true);
    assert.is((fs.lstatSync(file).mode & 0o777).toString(8), '600');
  } finally {
    await server.close();
  }
});

test('control-socket :: a live socket makes startControlServer throw', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const first = await startControlServer(file, handlers);
  try {
    try {
      await startControlServer(file, handlers);
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, ControlSocketInUseError);
      assert.match((error as Error).message, /already running/);
      assert.match((error as Error).message, file);
    }
    // The first service is untouched.
    assert.is((await callControl(file, 'status', {})).ok, true);
  } finally {
    await first.close();
  }
});

test('control-socket :: a regular file at the socket path is not removed', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  fs.writeFileSync(file, 'precious');
  try {
    await startControlServer(file, handlers);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.match((error as Error).message, /not a socket/);
  }
  assert.is(fs.readFileSync(file, 'utf8'), 'precious');
});

test('control-socket :: callControl without a service throws NoServiceError', async () => {
  const dir = tempDir();
  const missing = path.join(dir, 'agent.sock');
  try {
    await callControl(missing, 'status', {});
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, NoServiceError);
    assert.match((error as Error).message, /No running agent service/);
  }
  // A stale socket file refuses connections: also no service.
  const stale = path.join(dir, 'stale.sock');
  await makeStaleSocket(stale);
  try {
    await callControl(stale, 'restart', { server: 'files' });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, NoServiceError);
  }
});

test('control-socket :: callControl times out when the service never answers', async () => {
  const file = path.join(tempDir(), 'agent.sock');
  const mute = net.createServer(() => {});
  await new Promise<void>((resolve) => mute.listen(file, resolve));
  try {
    await callControl(file, 'status', {}, { timeoutMs: 50 });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, ControlTimeoutError);
  } finally {
    mute.close();
  }
});

test.run();
