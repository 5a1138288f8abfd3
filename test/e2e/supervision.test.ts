// End to end: supervision, stderr limits, the control bus and /health/mcp, through the real CLI
// with real backend processes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { descendants, isAlive } from '../helpers/processes.ts';
import { backendFixture, FIXTURE_SERVER, poll, runCli, type Service, startService } from '../helpers/service.ts';

const node = process.execPath;
let svc: Service;
let marker: string;

const supervised = (extra: Record<string, unknown> = {}) => ({
  command: node,
  args: [FIXTURE_SERVER],
  restartOnExit: true,
  ...extra,
});

const T = suite('e2e supervision');

T.before(async () => {
  marker = path.join(fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'agent-marker-')), 'crash');
  svc = await startService({
    config: {
      mcpServers: {
        healthy: { command: node, args: [FIXTURE_SERVER] },
        phoenix: supervised({ args: [backendFixture('crashes-while-file-exists.mjs'), marker], restartDelay: 400, maxRestarts: 2 }),
        fragile: supervised({ restartDelay: 100 }),
        flood: { command: node, args: [backendFixture('floods-stderr.mjs')] },
        chatty: { command: node, args: [backendFixture('writes-stderr-at-start.mjs'), '25'] },
        echoing: { command: node, args: [backendFixture('writes-stderr-at-start.mjs'), '3', '15'] },
        wrapped: supervised({ command: '/bin/sh', args: ['-c', `sleep 1000 & "${node}" "${FIXTURE_SERVER}"`] }),
        sluggish: { command: node, args: [FIXTURE_SERVER], requestTimeout: 300 },
      },
    },
    args: ['--health-info-level', 'full', '--health-rate-limit', '0'],
  });
  await svc.waitFor(async () => (await svc.get('/health')).body.status === 'healthy', 'all healthy', 20_000);
});

T.after(async () => {
  if (svc.child.exitCode === null) await svc.stop();
  fs.rmSync(path.dirname(marker), { recursive: true, force: true });
});

const supervision = async (name: string) => (await svc.get('/health/ready')).body.backendSupervision.backends.find((b: any) => b.name === name);
const cli = (...args: string[]) => runCli(['mcp', ...args, '--config', svc.configFile]);

T('e2e supervision :: /health/mcp reports loading done and per-server state', async () => {
  const all = await svc.get('/health/mcp');
  assert.is(all.status, 200);
  assert.is(all.body.status, 'ready');
  assert.equal(all.body.loading.total, 8);
  assert.equal(all.body.loading.ready, 8);
  assert.equal(all.body.backendSupervision.total, 3);
  const one = await svc.get('/health/mcp/phoenix');
  assert.is(one.status, 200);
  assert.is(one.body.state, 'connected');
  assert.ok(Number.isInteger(one.body.pid), 'full level shows the pid');
  const missing = await svc.get('/health/mcp/nope');
  assert.is(missing.status, 404);
  assert.equal({ error: missing.body.error, message: missing.body.message }, { error: 'not_found', message: "Server 'nope' not found" });
});

T('e2e supervision :: a crash fails the in-flight call at once, readiness drops, crash loop follows', async () => {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  const before = await supervision('phoenix');
  fs.writeFileSync(marker, 'crash');
  const started = Date.now();
  const call = client.callTool({ name: 'phoenix_agent_slow', arguments: { steps: 50, delayMs: 200 } }).then(() => 'completed', (e: Error) => e.message);
  await new Promise((r) => setTimeout(r, 300));
  process.kill(before.pid, 'SIGKILL');
  const message = await call;
  assert.match(message, /backend 'phoenix' restarted; the request was not completed and is not replayed/);
  assert.ok(Date.now() - started < 5_000, 'the call failed promptly, long before its 10 s');
  const restarting = await poll(async () => {
    const s = await supervision('phoenix');
    return s.state === 'restarting' && s;
  }, 'phoenix restarting');
  assert.is(restarting.attempt, 1);
  assert.is(restarting.limit, 2);
  assert.is(restarting.lastExit.signal, 'SIGKILL');
  assert.is(restarting.lastExit.pid, before.pid);
  assert.is((await svc.get('/health/ready')).status, 503);
  assert.is((await svc.get('/health/mcp/phoenix')).status, 503);
  const loop = await poll(async () => {
    const s = await supervision('phoenix');
    return s.state === 'crashLoop' && s;
  }, 'phoenix in crash loop', 10_000);
  assert.is(loop.attempt, 2);
  assert.is(loop.nextRetryAt, null);
  assert.is(loop.lastExit.code, 5);
  const ready = await svc.get('/health/ready');
  assert.is(ready.status, 503);
  assert.is(ready.body.backendSupervision.crashLoop, 1);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.not.ok(tools.some((t) => t.startsWith('phoenix_agent_')), 'capabilities are withdrawn');
  await client.close();
});

T('e2e supervision :: agent mcp status shows live state; restart brings the backend back with a new pid and its tools', async () => {
  const status = await cli('status', 'phoenix', '--json');
  assert.is(status.code, 0, status.stderr);
  const view = JSON.parse(status.stdout);
  assert.is(view.live, true);
  assert.is(view.servers[0].supervision.state, 'crashLoop');
  assert.is(view.servers[0].status, 'error');
  const text = await cli('status');
  assert.match(text.stdout, /Live status of the service/);
  assert.match(text.stdout, /phoenix\s+error\s+crashLoop\s+2\/2/);

  const v1 = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
  let changes = 0;
  v1.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
  await v1.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  await new Promise((r) => setTimeout(r, 300));

  fs.rmSync(marker);
  const restarted = await cli('restart', 'phoenix');
  assert.is(restarted.code, 0, restarted.stderr);
  assert.is(restarted.stdout, 'Restarted phoenix\n');
  const after = await poll(async () => {
    const s = await supervision('phoenix');
    return s.state === 'connected' && s;
  }, 'phoenix connected');
  assert.is(after.attempt, 0, 'an operator restart resets the counter');
  assert.ok(Number.isInteger(after.pid));
  assert.is((await svc.get('/health/ready')).status, 200);
  assert.is((await svc.get('/health/mcp/phoenix')).status, 200, 'an operator restart is a fresh start: its past exits no longer count');
  await poll(async () => changes > 0, 'list_changed after the restart');
  const tools = (await v1.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('phoenix_agent_echo'), 'tools are listed again after a restart');
  assert.equal((await v1.callTool({ name: 'phoenix_agent_echo', arguments: { text: 'back' } })).content, [{ type: 'text', text: 'back' }]);
  await v1.close();
});

T('e2e supervision :: a supervised backend that exits is restarted with a new pid', async () => {
  const before = await supervision('fragile');
  process.kill(before.pid, 'SIGTERM');
  const after = await poll(async () => {
    const s = await supervision('fragile');
    return s.state === 'connected' && s.pid !== before.pid && s;
  }, 'fragile restarted');
  assert.is(after.attempt, 1);
  assert.is(after.lastExit.pid, before.pid);
  // The exit counts until the replacement has stayed connected 10 s, not 60 s (decisions §3).
  assert.is((await svc.get('/health/mcp/fragile')).status, 503, 'just restarted: still unhealthy');
  const recovered = Date.now();
  await poll(async () => (await svc.get('/health/mcp/fragile')).status === 200, 'fragile healthy again', 15_000);
  assert.ok(Date.now() - recovered < 12_000, 'healthy again about 10 s after the replacement connected');
});

T('e2e supervision :: three request timeouts in a row make a backend unhealthy until a call succeeds', async () => {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  const slow = () => client.callTool({ name: 'sluggish_agent_slow', arguments: { steps: 1, delayMs: 1000 } }).then(() => 'completed', (e: Error) => e.message);
  for (let i = 0; i < 2; i++) assert.match(await slow(), /timed out after 300 ms/);
  assert.is((await svc.get('/health/mcp/sluggish')).status, 200, 'two timeouts are not yet critical');
  assert.match(await slow(), /timed out after 300 ms/);
  await poll(async () => (await svc.get('/health/mcp/sluggish')).status === 503, 'sluggish unhealthy after the third timeout');
  assert.equal((await client.callTool({ name: 'sluggish_agent_echo', arguments: { text: 'ok' } })).content, [{ type: 'text', text: 'ok' }]);
  await poll(async () => (await svc.get('/health/mcp/sluggish')).status === 200, 'sluggish healthy after a call succeeded');
  await client.close();
});

T('e2e supervision :: restart and status errors: unknown server exits 1, no service exits 3', async () => {
  const unknown = await cli('restart', 'ghost');
  assert.is(unknown.code, 1);
  // The operator's channel keeps the path (decisions §4 revised).
  assert.ok(unknown.stderr.includes(`Server 'ghost' not found in ${svc.configFile}`), unknown.stderr);
  const none = await runCli(['mcp', 'restart', 'phoenix', '--config-dir', path.dirname(marker)]);
  assert.is(none.code, 3);
  assert.match(none.stderr, /no running service found/);
  const configured = await runCli(['mcp', 'status', '--config', '/nonexistent/agent-test/mcp.json']);
  assert.is(configured.code, 1, 'a missing configuration and no service is an error');
});

T('e2e supervision :: stderr is captured with quotas and summaries', async () => {
  const chatty = await svc.waitForLog((l) => l.backend === 'chatty' && typeof l.msg === 'string' && l.msg.startsWith('suppressed'), 12_000);
  assert.is(chatty.msg, 'suppressed 5 lines');
  assert.is(svc.logs.filter((l) => l.backend === 'chatty' && l.stream === 'stderr' && /^fixture stderr line \d+$/.test(String(l.msg))).length, 20);
  const echoing = await svc.waitForLog((l) => l.backend === 'echoing' && typeof l.msg === 'string' && l.msg.startsWith('repeated'), 12_000);
  assert.is(echoing.msg, 'repeated 14 times: fixture repeated line');
  const flood = svc.logs.filter((l) => l.backend === 'flood' && l.stream === 'stderr');
  assert.ok(flood.length < 200, `a flood is bounded in the log (${flood.length} lines)`);
});

T('e2e supervision :: a flooding backend does not stop a healthy backend from answering', async () => {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  for (let i = 0; i < 20; i++) {
    assert.equal((await client.callTool({ name: 'healthy_agent_echo', arguments: { text: `n${i}` } })).content, [{ type: 'text', text: `n${i}` }]);
  }
  assert.equal((await client.callTool({ name: 'flood_agent_echo', arguments: { text: 'still' } })).content, [{ type: 'text', text: 'still' }]);
  await client.close();
  assert.is((await svc.get('/health')).body.servers.details.find((d: any) => d.name === 'flood').status, 'connected');
});

T('e2e supervision :: shutdown leaves no child, grandchild or worker', async () => {
  const tree = descendants(svc.child.pid!);
  assert.ok(tree.length >= 8, `backend processes found: ${tree.length}`);
  const stopped = await svc.stop();
  assert.is(stopped.code, 0);
  const survivors = await poll(async () => (tree.every((pid) => !isAlive(pid)) ? [] : undefined), 'all processes gone', 6_000).catch(() => tree.filter(isAlive));
  assert.equal(survivors, []);
});

T.run();
