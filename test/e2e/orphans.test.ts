// End to end: a service killed with SIGKILL leaves its backends running; the next service on
// the same configuration directory ends their process groups, one log line each (issue 12, item 4).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { isAlive, processesWith } from '../helpers/processes.ts';
import { poll, ROOT, runCli, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const IGNORES_EOF = path.join(ROOT, 'test/fixtures/backends/ignores-stdin-eof.mjs');

test('orphans :: the next service ends the backends a SIGKILLed one left behind, and what they started in a session of their own', async () => {
  const dir = tempDir();
  const marker = `orphan-${randomUUID()}`;
  // The backend starts a process in a session of its own first (setsid): no signal to its group reaches it (found by an outside check).
  const outsider = `outsider-${randomUUID()}`;
  const script = `setsid ${process.execPath} -e 'setInterval(() => {}, 1000)' ${outsider} & exec ${process.execPath} ${IGNORES_EOF} ${marker}`;
  const config = { mcpServers: { stubborn: { command: 'sh', args: ['-c', script] } } };
  try {
    const first = await startService({ dir, config, args: ['--health-rate-limit', '0'] });
    await poll(async () => (await first.get('/health/mcp/stubborn')).status === 200, 'stubborn connected', 20_000);
    const [orphan] = processesWith(marker);
    assert.ok(orphan, 'the backend runs');
    assert.ok(fs.existsSync(path.join(dir, 'children', `${orphan!.pid}.json`)), 'its worker recorded it');
    await first.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(isAlive(orphan!.pid), 'SIGKILL left the backend running (it ignores stdin EOF)');
    const [away] = processesWith(outsider);
    assert.ok(away && isAlive(away.pid), 'and the process it started in its own session');

    const second = await startService({ dir, config, args: ['--health-rate-limit', '0'] });
    try {
      const line = await second.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith("ended the process group of backend 'stubborn'"));
      assert.is(line.pid, orphan!.pid);
      assert.is(line.deadService, first.child.pid);
      assert.equal(line.outsideGroup, [away!.pid]);
      await poll(async () => !isAlive(orphan!.pid), 'the orphan gone');
      await poll(async () => !isAlive(away!.pid), 'the process in its own session gone');
      await poll(async () => (await second.get('/health/mcp/stubborn')).status === 200, 'its successor connected', 20_000);
      assert.is(processesWith(marker).length, 1, 'only the new service\'s backend runs');
    } finally {
      await second.stop();
    }
    assert.equal(processesWith(marker), []);
    assert.equal(processesWith(outsider), [], 'a clean stop ends it too');
  } finally {
    for (const { pid } of [...processesWith(marker), ...processesWith(outsider)]) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// After its state directory came back: the backend's record is there, the CLI reaches the
// service, and once it is SIGKILLed the next start on that directory ends the backend.
async function expectStateMadeAgain(first: Service, dir: string, state: string, backendPid: number, args: string[]) {
  assert.ok(fs.existsSync(path.join(state, 'children', `${backendPid}.json`)), 'its record made again');
  const status = await runCli(['mcp', 'status', '--config', path.join(dir, 'mcp.json'), ...(state === dir ? [] : ['--state-dir', state])]);
  assert.is(status.code, 0, status.stderr);
  assert.match(status.stdout, /Live status of the service/);
  await first.stop('SIGKILL');
  const second = await startService({ dir, config: { mcpServers: {} }, args });
  try {
    await second.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith("ended the process group of backend 'stubborn'"));
    await poll(async () => !isAlive(backendPid), 'the orphan gone');
  } finally {
    await second.stop();
  }
}

test('orphans :: the configuration directory removed and made again: the control socket and the child records are made again, so the CLI and the sweep still work', async () => {
  const parent = tempDir();
  const dir = path.join(parent, 'cfg');
  fs.mkdirSync(dir);
  const marker = `orphan-${randomUUID()}`;
  const config = { mcpServers: { stubborn: { command: process.execPath, args: [IGNORES_EOF, marker] } } };
  let stopFirst = async (): Promise<unknown> => undefined;
  try {
    const first = await startService({ dir, config, args: ['--health-rate-limit', '0'] });
    stopFirst = () => first.stop('SIGKILL');
    await poll(async () => (await first.get('/health/mcp/stubborn')).status === 200, 'stubborn connected', 20_000);
    const [backend] = processesWith(marker);
    fs.rmSync(dir, { recursive: true });
    await new Promise((r) => setTimeout(r, 600));
    fs.mkdirSync(dir);
    writeConfig(path.join(dir, 'mcp.json'), config); // the same entry: the backend keeps its process
    await first.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('the configuration directory was removed and made again'));
    await expectStateMadeAgain(first, dir, dir, backend!.pid, ['--health-rate-limit', '0']);
  } finally {
    await stopFirst();
    for (const { pid } of processesWith(marker)) process.kill(pid, 'SIGKILL');
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

test('orphans :: a --state-dir of its own removed: the service makes it again, with its control socket and child records', async () => {
  const parent = tempDir();
  const dir = path.join(parent, 'cfg');
  const state = path.join(parent, 'state');
  fs.mkdirSync(dir);
  const marker = `orphan-${randomUUID()}`;
  const config = { mcpServers: { stubborn: { command: process.execPath, args: [IGNORES_EOF, marker] } } };
  const args = ['--health-rate-limit', '0', '--state-dir', state];
  let stopFirst = async (): Promise<unknown> => undefined;
  try {
    const first = await startService({ dir, config, args });
    stopFirst = () => first.stop('SIGKILL');
    await poll(async () => (await first.get('/health/mcp/stubborn')).status === 200, 'stubborn connected', 20_000);
    const [backend] = processesWith(marker);
    fs.rmSync(state, { recursive: true });
    await first.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('the state directory was removed'));
    await expectStateMadeAgain(first, dir, state, backend!.pid, args);
  } finally {
    await stopFirst();
    for (const { pid } of processesWith(marker)) process.kill(pid, 'SIGKILL');
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

test('orphans :: a stdio service ends them too (a stdio client may SIGKILL its service while a backend stops)', async () => {
  const dir = tempDir();
  const marker = `orphan-${randomUUID()}`;
  const config = { mcpServers: { stubborn: { command: process.execPath, args: [IGNORES_EOF, marker] } } };
  try {
    writeConfig(path.join(dir, 'mcp.json'), config);
    const serve = ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', path.join(dir, 'mcp.json')];
    // A client's service: its stdin stays open.
    const first = spawn(process.execPath, serve, { cwd: ROOT, stdio: ['pipe', 'ignore', 'ignore'] });
    const [orphan] = await poll(async () => processesWith(marker).length === 1 && processesWith(marker), 'the backend running', 20_000);
    await poll(async () => fs.existsSync(path.join(dir, 'children', `${orphan!.pid}.json`)), 'its record');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    assert.ok(isAlive(orphan!.pid), 'SIGKILL left the backend running (it ignores stdin EOF)');
    // Its stdin is /dev/null: it stops by itself once up, after its sweep.
    writeConfig(path.join(dir, 'mcp.json'), { mcpServers: {} });
    const second = spawnSync(process.execPath, serve, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    assert.is(second.status, 0, second.stderr);
    const line = second.stderr.split('\n').find((l) => l.includes("ended the process group of backend 'stubborn'"));
    assert.ok(line, second.stderr);
    assert.is(JSON.parse(line!).deadService, first.pid);
    await poll(async () => !isAlive(orphan!.pid), 'the orphan gone');
  } finally {
    for (const { pid } of processesWith(marker)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
