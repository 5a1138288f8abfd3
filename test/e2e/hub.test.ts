// End to end: the MCP face in its own worker (the hub), reached through the main thread's byte
// pump (issue 13): large bodies both ways, a client leaving mid-call, streams that stay open, a
// hub that dies (health answers throughout, backends keep their pids, clients get their tools
// back), two hubs, and the priorities of every thread and process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { parseAutogroup } from '../../lib/shared/priority.ts';
import { descendants } from '../helpers/processes.ts';
import { FIXTURE_SERVER, poll, ROOT, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
const fixture = (extra: Record<string, unknown> = {}) => ({ command: node, args: [FIXTURE_SERVER], ...extra });

async function pids(svc: Service): Promise<Record<string, number | null>> {
  const answer = await callControl(socketPath(svc.dir), 'status', {});
  if (!answer.ok) throw new Error(answer.error.message);
  return Object.fromEntries((answer.result as { servers: { name: string; pid: number | null }[] }).servers.map((s) => [s.name, s.pid]));
}

const modern = async (svc: Service) => {
  const client = new Client({ name: 'e2e-hub', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  return client;
};

// ---------------------------------------------------------------------------------------------
const One = suite('e2e hub (one hub that can be made to crash)');
let svc: Service;

One.before(async () => {
  svc = await startService({
    entry: path.join(ROOT, 'test/fixtures/main/serve-with-crashing-hub.ts'),
    config: { mcpServers: { fixture: fixture(), other: fixture({ tags: ['other'] }) } },
    args: ['--health-rate-limit', '0'],
  });
  await svc.waitFor(async () => (await svc.get('/health')).body.status === 'healthy', 'both backends healthy', 20_000);
});
One.after(async () => {
  await svc.stop();
});

One('hub :: a 5 MiB argument and a 5 MiB result cross the byte pump intact, in both eras', async () => {
  const text = 'x'.repeat(5 * 1024 * 1024 - 7) + 'the end';
  for (const mode of ['auto', 'legacy'] as const) {
    const client = new Client({ name: 'big', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
    const result = await client.callTool({ name: 'fixture_agent_echo', arguments: { text } });
    const back = (result.content as { text: string }[])[0]!.text;
    assert.is(back.length, text.length, mode);
    assert.ok(back === text, `${mode}: the same bytes came back`);
    await client.close();
  }
});

One('hub :: a client that goes away mid-call cancels the call in the backend', async () => {
  const client = await modern(svc);
  const abort = new AbortController();
  const call = client.callTool({ name: 'fixture_agent_slow', arguments: { steps: 50, delayMs: 100 } }, { signal: abort.signal }).catch((e: Error) => e.message);
  await new Promise((r) => setTimeout(r, 300));
  abort.abort();
  await call;
  await svc.waitForLog((l) => l.backend === 'fixture' && l.msg === 'fixture: slow call cancelled', 5_000);
  assert.equal((await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'still here' } })).content, [{ type: 'text', text: 'still here' }]);
  await client.close();
});

One('hub :: an SSE stream and a 2025 GET stream stay open and carry notifications seconds later', async () => {
  const sse = new V1Client({ name: 'sse', version: '1.0.0' });
  const streamable = new V1Client({ name: 'streamable', version: '1.0.0' });
  let sseChanges = 0;
  let streamChanges = 0;
  sse.setNotificationHandler(ToolListChangedNotificationSchema, async () => void sseChanges++);
  streamable.setNotificationHandler(ToolListChangedNotificationSchema, async () => void streamChanges++);
  // Closed whatever happens: an SSE client left open retries its stream for ever once the service stops.
  try {
    await sse.connect(new V1SseTransport(new URL(`${svc.base}/sse`)));
    await streamable.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
    await new Promise((r) => setTimeout(r, 3_000));
    const config = JSON.parse(fs.readFileSync(svc.configFile, 'utf8'));
    // A change of the tool list (a tag alone changes nothing these unfiltered sessions see).
    writeConfig(svc.configFile, { mcpServers: { ...config.mcpServers, other: fixture({ tags: ['other'], disabledTools: ['add'] }) } });
    await poll(async () => sseChanges > 0 && streamChanges > 0, 'list_changed on both streams');
    assert.not.ok((await sse.listTools()).tools.some((t) => t.name === 'other_agent_add'));
  } finally {
    await sse.close();
    await streamable.close();
  }
});

// One raw HTTP/1.1 exchange: the status line of the answer and its body.
function rawRequest(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
  });
}

One('hub :: requests fetch cannot carry (TRACE, two Host headers, an absolute-form target) get their 4xx; the hub lives on', async () => {
  const host = `127.0.0.1:${svc.port}`;
  const trace = await rawRequest(svc.port, `TRACE /mcp HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  assert.is(trace.status, 405, trace.body);
  assert.match(trace.body, /method_not_allowed/);
  const twoHosts = await rawRequest(svc.port, `GET /api/v1/servers HTTP/1.1\r\nHost: ${host}\r\nHost: x\r\nConnection: close\r\n\r\n`);
  assert.is(twoHosts.status, 400, twoHosts.body);
  assert.match(twoHosts.body, /more than one Host header/);
  const absolute = await rawRequest(svc.port, `GET http://x/api/v1/servers HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  assert.is(absolute.status, 200, absolute.body);
  assert.ok(absolute.body.includes('fixture'), absolute.body);
  // A health route in absolute form is answered by the main thread like any probe (it was forwarded, and 404).
  for (const target of [`http://${host}/health`, `http://${host}/health/ready?x=1`, `http://${host}/health/mcp/fixture`]) {
    const probe = await rawRequest(svc.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assert.is(probe.status, 200, `${target}: ${probe.body}`);
    assert.match(probe.body, /"(status|state)":"(healthy|ready|connected)"/);
  }
  // Errors the SDK writes itself name their catalogue code too (found by an outside check).
  const mcpPost = (headers: Record<string, string>, body: string) => fetch(`${svc.base}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers }, body });
  const wrongType = await mcpPost({ 'content-type': 'text/plain' }, '{}');
  assert.equal([wrongType.status, ((await wrongType.json()) as { error: { data: unknown } }).error.data], [415, { code: 'bad_request' }]);
  const noJson = await mcpPost({ 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, '{not json');
  const noJsonBody = (await noJson.json()) as { error: { code: number; data: unknown } };
  assert.equal([noJson.status, noJsonBody.error.data], [400, { code: 'bad_request' }], JSON.stringify(noJsonBody));
  // An unknown method is no missing session, and data the SDK gives keeps what it says (found by an outside check).
  const modernPost = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    mcpPost({ 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...headers }, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }));
  const unknownMethod = await modernPost('foo/bar', {});
  const unknownBody = (await unknownMethod.json()) as { error: { code: number; data: unknown } };
  assert.equal([unknownMethod.status, unknownBody.error.code, unknownBody.error.data], [404, -32601, { code: 'unknown_method' }], JSON.stringify(unknownBody));
  const noName = await modernPost('tools/call', { name: 'fixture_agent_echo', arguments: { text: 'q' } });
  const noNameBody = (await noName.json()) as { error: { data: { code?: string; mismatch?: unknown } } };
  assert.is(noName.status, 400, JSON.stringify(noNameBody));
  assert.is(noNameBody.error.data.code, 'bad_request', JSON.stringify(noNameBody));
  assert.ok(noNameBody.error.data.mismatch, 'the SDK’s own data is kept');
  // A subscriptions/listen the SDK refuses answers 200 with a JSON error: coded too.
  const badListen = await modernPost('subscriptions/listen', {});
  const badListenBody = (await badListen.json()) as { error: { code: number; data: unknown } };
  assert.equal([badListenBody.error.code, badListenBody.error.data], [-32602, { code: 'bad_request' }], JSON.stringify(badListenBody));
  // In a 2025 session the SDK answers an unknown method inside a 200, and the hub's own errors (a bad cursor) too.
  const legacyClient = new Client({ name: 'codes', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const legacyTransport = new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`));
  await legacyClient.connect(legacyTransport);
  const badCursor = await legacyClient.listTools({ cursor: 'MjAw' }).then(
    () => null,
    (error: { code?: number; data?: unknown }) => [error.code, error.data],
  );
  assert.equal(badCursor, [-32602, { code: 'bad_request' }]);
  const inSession = await mcpPost(
    { 'content-type': 'application/json', 'mcp-session-id': legacyTransport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
    JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'foo/bar', params: {} }),
  );
  const inSessionText = await inSession.text();
  const answerLine = inSessionText.split('\n').find((line) => line.startsWith('data: ') && line.includes('"id":9'));
  const inSessionBody = JSON.parse(answerLine ? answerLine.slice(6) : inSessionText) as { error: { code: number; data: unknown } };
  assert.equal([inSession.status, inSessionBody.error.code, inSessionBody.error.data], [200, -32601, { code: 'unknown_method' }], inSessionText);
  await legacyClient.close();
  assert.not.ok(svc.logs.some((l) => /^hub worker thread/.test(String(l.msg))), 'the hub did not fail');
  const client = await modern(svc);
  assert.equal((await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'alive' } })).content, [{ type: 'text', text: 'alive' }]);
  await client.close();
});

One('hub :: a hub that dies: health answers throughout, MCP gets 503 then comes back, backends keep their pids; its sessions end (404) and its calls fail, and the log says how many', async () => {
  const before = await pids(svc);
  const session = new V1Client({ name: 'before-crash', version: '1.0.0' });
  const sessionTransport = new V1HttpTransport(new URL(`${svc.base}/mcp`));
  await session.connect(sessionTransport);
  const oldId = sessionTransport.sessionId!;
  // Calls in flight when the hub dies, one per era and one over legacy SSE (the hub reports its load every 250 ms).
  const caller = await modern(svc);
  const sseClient = new V1Client({ name: 'sse-before-crash', version: '1.0.0' });
  await sseClient.connect(new V1SseTransport(new URL(`${svc.base}/sse`)));
  const slow = { name: 'fixture_agent_slow', arguments: { steps: 50, delayMs: 100 } };
  const inFlight = [caller.callTool(slow), session.callTool(slow), sseClient.callTool(slow)].map((call) => call.then(() => 'answered', (e: Error) => e.message));
  await new Promise((r) => setTimeout(r, 600));
  let probing = true;
  const probes: number[] = [];
  const prober = (async () => {
    while (probing) {
      probes.push((await fetch(`${svc.base}/health/live`)).status);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const crash = await fetch(`${svc.base}/crash-hub`).then((r) => r.status, () => 0);
  assert.ok(crash === 503 || crash === 0, `the request that killed the hub was answered 503 or cut (${crash})`);
  const during = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.is(during.status, 503);
  assert.equal(await during.json(), { jsonrpc: '2.0', error: { code: -32603, message: 'The MCP service is restarting; retry in a moment', data: { code: 'hub_unavailable' } }, id: null });
  // With no hub up the service is not ready: a load balancer stops sending clients that would get 503.
  const notReady = await svc.get('/health/ready');
  assert.is(notReady.status, 503);
  assert.equal([notReady.body.status, notReady.body.mcpWorkers], ['not_ready', { total: 1, up: 0 }]);
  assert.is((await svc.get('/health/mcp')).body.status, 'degraded');
  await svc.waitForLog((l) => l.msg === 'hub restarted: serving MCP clients again', 10_000);
  const ready = await svc.get('/health/ready');
  assert.equal([ready.status, ready.body.status, ready.body.mcpWorkers], [200, 'ready', { total: 1, up: 1 }]);
  probing = false;
  await prober;
  assert.ok(probes.length > 10 && probes.every((s) => s === 200), `every probe answered 200 (${probes.length})`);
  assert.equal(await pids(svc), before, 'the backends kept their processes');
  const died = svc.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('hub worker thread exited with code 1: '))!;
  assert.ok(died, 'the hub\'s death is logged');
  assert.is(died.callsInFlight, 3, 'the slow calls');
  assert.ok((died.sessionsEnded as number) >= 1, `the 2025 sessions it held (${died.sessionsEnded})`);
  assert.match(String(died.msg), new RegExp(`: ${died.sessionsEnded} MCP sessions? ended and 3 calls in flight failed; MCP clients get 503 until it is back`));
  // The calls in flight failed for their clients at once, saying why.
  for (const failure of await Promise.all(inFlight)) assert.match(failure, /The MCP worker handling this request stopped before it answered/, failure);
  // The old session is gone with its hub: its id leads to the new hub, which answers 404; a new one gets every tool back.
  const old = await session.listTools().then(() => 'answered', (e: Error) => e.message);
  assert.match(old, /404|Session not found/);
  const raw = await fetch(`${svc.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': oldId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.is(raw.status, 404, 'a session id from before the restart');
  const again = new V1Client({ name: 'after-crash', version: '1.0.0' });
  await again.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  assert.ok((await again.listTools()).tools.length > 0, 'a new 2025 session works');
  await again.close();
  await caller.close();
  await sseClient.close();
  const client = await modern(svc);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('fixture_agent_echo') && tools.includes('other_agent_echo'), tools.join(', '));
  assert.equal((await client.callTool({ name: 'other_agent_echo', arguments: { text: 'back' } })).content, [{ type: 'text', text: 'back' }]);
  await client.close();
});

One.run();

// ---------------------------------------------------------------------------------------------
const Stdio = suite('e2e hub (stdio mode, a hub that can be made to crash)');

type Answer = { result?: Record<string, unknown> & { content?: unknown }; error?: { code: number; message: string } };

// `agent serve --transport stdio` whose hubs die on request (or the real entry), its client played by the test.
const CRASHING_ENTRY = [path.join(ROOT, 'test/fixtures/main/serve-with-crashing-hub.ts')];
function crashingStdio(config: object, args: string[] = [], entry = CRASHING_ENTRY) {
  const configFile = path.join(tempDir(), 'mcp.json');
  writeConfig(configFile, config);
  const child = spawn(node, ['--import', 'tsx', ...entry, '--transport', 'stdio', '--port', '0', '--config', configFile, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers = new Map<number | string, Answer>();
  // Every answer line's id, to see that none is answered twice; the service's questions apart.
  const ids: (number | string)[] = [];
  const questions: { id: string | number; method: string; params: Record<string, unknown> }[] = [];
  const notifications: string[] = [];
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    let nl: number;
    while ((nl = out.indexOf('\n')) !== -1) {
      const message = JSON.parse(out.slice(0, nl));
      out = out.slice(nl + 1);
      if ('method' in message && 'id' in message) questions.push(message);
      else if ('method' in message) notifications.push(message.method);
      else if ('id' in message) {
        ids.push(message.id);
        answers.set(message.id, message);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // How the process ended: its code, or the signal that killed it.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const line = (message: object) => `${JSON.stringify(message)}\n`;
  return {
    child,
    answers,
    ids,
    questions,
    notifications,
    exited,
    ended,
    line,
    err: () => err,
    count: (pattern: RegExp) => (err.match(new RegExp(pattern.source, 'g')) ?? []).length,
    send: (message: object) => child.stdin.write(line(message)),
    // A failed check still stops the service the normal way, so its backends end with it.
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const initialize = (id: number, elicitation = false) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: elicitation ? { elicitation: { form: {} } } : {}, clientInfo: { name: 'stdio-crash', version: '1' } },
});

Stdio("hub :: in stdio mode, a hub that dies fails the calls it owed with an error line each, the request it died of too, and that one is not sent again; the next hub serves the same client and knows its capabilities", async () => {
  const svc = crashingStdio({ mcpServers: { fixture: fixture(), asks: { command: node, args: [path.join(ROOT, 'test/fixtures/backends/asks-the-client.mjs')], protocolVersion: 'legacy' } } });
  const { answers, send } = svc;
  try {
    send(initialize(1, true));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await poll(async () => answers.has(1) && svc.count(/backend connected/) >= 2, 'initialized, backends connected', 20_000);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_agent_slow', arguments: { steps: 20, delayMs: 500 } } });
    await new Promise((r) => setTimeout(r, 500));
    send({ jsonrpc: '2.0', id: 3, method: 'ping', params: { note: 'crash-hub' } });
    const failed = await poll(async () => answers.get(2)?.error, 'the call in flight failed', 10_000);
    assert.is(failed.code, -32603);
    assert.match(failed.message, /stopped before it answered/);
    const killer = await poll(async () => answers.get(3)?.error, 'the request the hub died of failed too', 10_000);
    assert.match(killer.message, /stopped before it answered/);
    assert.match(svc.err(), /"stdioRequestsFailed":2,[^\n]*2 requests of the stdio client failed \(an error line for each\); the restarted hub serves the same client/);
    await poll(async () => /hub restarted/.test(svc.err()), 'the hub back', 20_000);
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'after' } } });
    const after = await poll(async () => answers.get(4), 'an answer from the next hub', 10_000);
    assert.equal(after.result?.content, [{ type: 'text', text: 'after' }]);
    // The next hub heard the client's initialize again: it knows the client can be asked.
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'asks_agent_push_confirm', arguments: {} } });
    const question = await poll(async () => svc.questions.find((q) => q.method === 'elicitation/create'), 'the backend\'s question, passed to the client', 10_000);
    assert.is(question.params.message, 'Proceed?');
    send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } });
    const confirmed = await poll(async () => answers.get(5), 'the call that asked', 10_000);
    assert.equal(confirmed.result?.content, [{ type: 'text', text: 'push: accept {"ok":true}' }]);
    svc.child.stdin.end();
    assert.is(await svc.exited, 0, svc.err());
    assert.equal(svc.ids, [...new Set(svc.ids)], 'no id answered twice (the replayed initialize is not answered to the client)');
    assert.is(svc.count(/hub restarted/), 1, 'one death: the line that killed the hub was read, so it went to no other hub');
  } finally {
    await svc.stop();
  }
});

Stdio("hub :: in stdio mode the client's one session is offered tools, prompts and resources from the start: a backend that connects after its initialize (--initial-wait 0) reaches it", async () => {
  const svc = crashingStdio({ mcpServers: { slow: { command: node, args: [path.join(ROOT, 'test/fixtures/backends/slow-to-start.mjs'), '1500'] } } }, ['--initial-wait', '0']);
  try {
    await poll(async () => /hub ready/.test(svc.err()), 'hub 0 up', 20_000);
    svc.send(initialize(1));
    const init = await poll(async () => svc.answers.get(1), 'initialize answered', 10_000);
    assert.not.match(svc.err(), /backend connected/, 'answered before the backend connected');
    assert.equal((init.result?.capabilities as Record<string, unknown>).tools, { listChanged: true });
    svc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await poll(async () => svc.notifications.includes('notifications/tools/list_changed'), 'list_changed once the backend is up', 20_000);
    svc.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow_agent_echo', arguments: { text: 'late' } } });
    assert.equal((await poll(async () => svc.answers.get(2), 'the call', 10_000)).result?.content, [{ type: 'text', text: 'late' }]);
  } finally {
    await svc.stop();
  }
});

Stdio('hub :: in stdio mode, a signal while the hub restarts: the lines no hub read are counted in a warning and the exit code is 1 (none is answered)', async () => {
  const svc = crashingStdio({ mcpServers: { fixture: fixture() } });
  try {
    const port = Number((await poll(async () => /"port":(\d+)/.exec(svc.err()) ?? undefined, 'the HTTP port', 20_000))[1]);
    svc.send(initialize(1));
    await poll(async () => svc.answers.get(1), 'initialized', 20_000);
    await fetch(`http://127.0.0.1:${port}/crash-hub`).catch(() => undefined);
    await poll(async () => /hub will restart/.test(svc.err()), 'the hub down', 10_000);
    svc.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await new Promise((r) => setTimeout(r, 100));
    svc.child.kill('SIGTERM');
    assert.is(await svc.exited, 1, svc.err());
    assert.match(svc.err(), /"bytes":\d+[^\n]*bytes of stdin were never read: no MCP worker was up when the service stopped \(one was starting or restarting\)/);
    assert.not.ok(svc.answers.has(2));
  } finally {
    await svc.stop();
  }
});

Stdio('hub :: in stdio mode, a signal while the service starts stops it the usual way once it is up: the request read gets its line, the process is not killed by the signal', async () => {
  const svc = crashingStdio({ mcpServers: { fixture: fixture() } }, ['--no-http'], [path.join(ROOT, 'bin/agent.ts'), 'serve']);
  try {
    svc.send(initialize(1));
    // The first log line comes from the service starting: the command line's handlers are in place.
    await poll(async () => svc.err().length > 0, 'the first log line', 20_000);
    svc.child.kill('SIGTERM');
    const { code, signal } = await svc.ended;
    assert.is(signal, null, svc.err());
    assert.ok(code === 0 || code === 1, String(code));
    assert.match(svc.err(), /"reason":"SIGTERM"[^\n]*shutting down/);
    // Hub 0 up by then: the initialize gets a line (its answer, or the shutdown error); not up yet:
    // no hub ever read it, and the warning counts it (exit 1). Never silence.
    assert.ok(svc.answers.has(1) || (code === 1 && /bytes of stdin were never read/.test(svc.err())), svc.err());
  } finally {
    await svc.stop();
  }
});

// A backend that never answers initialize keeps the hub's initial load going for --initial-wait: stdin waits in the hub meanwhile, unread.
const slowLoad = () => ({ mcpServers: { fixture: fixture(), hangs: { command: node, args: [path.join(ROOT, 'test/fixtures/backends/hangs-on-initialize.mjs')] } } });

Stdio('hub :: in stdio mode, the lines a hub had not read when it died go to the next hub: an initialize sent during the initial load is answered', async () => {
  const svc = crashingStdio(slowLoad(), ['--initial-wait', '4000']);
  try {
    const port = Number((await poll(async () => /"port":(\d+)/.exec(svc.err()) ?? undefined, 'the HTTP port', 20_000))[1]);
    await poll(async () => /hub ready/.test(svc.err()), 'hub 0 up', 20_000);
    svc.send(initialize(1));
    await new Promise((r) => setTimeout(r, 300));
    assert.not.ok(svc.answers.has(1), 'waiting for the initial load');
    // The hub dies of an HTTP request while the client's initialize waits in it.
    await fetch(`http://127.0.0.1:${port}/crash-hub`).catch(() => undefined);
    await poll(async () => /hub restarted/.test(svc.err()), 'the next hub', 20_000);
    const answer = await poll(async () => svc.answers.get(1), 'the initialize, answered by the next hub', 20_000);
    assert.is(answer.result?.protocolVersion, '2025-06-18', JSON.stringify(answer));
    svc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    svc.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'on' } } });
    assert.equal((await poll(async () => svc.answers.get(2), 'a call', 10_000)).result?.content, [{ type: 'text', text: 'on' }]);
    assert.not.match(svc.err(), /bytes of stdin were dropped/);
  } finally {
    await svc.stop();
  }
});

Stdio('hub :: in stdio mode, stdin that two hubs in a row die of before reading it is dropped, with a log line, and the service goes on', async () => {
  const svc = crashingStdio(slowLoad(), ['--initial-wait', '4000']);
  try {
    await poll(async () => /hub ready/.test(svc.err()), 'hub 0 up', 20_000);
    // One write: the initialize and the line that kills a hub as it arrives travel together.
    svc.child.stdin.write(svc.line(initialize(1)) + svc.line({ jsonrpc: '2.0', id: 2, method: 'ping', params: { note: 'crash-hub' } }));
    const dropped = await poll(async () => /"bytes":(\d+)[^\n]*bytes of stdin were dropped/.exec(svc.err()) ?? undefined, 'the drop, logged', 30_000);
    assert.ok(Number(dropped[1]) > 0);
    await poll(async () => svc.count(/hub restarted/) >= 2, 'a third hub', 30_000);
    svc.send(initialize(3));
    const answer = await poll(async () => svc.answers.get(3), 'a new initialize, answered', 20_000);
    assert.is(answer.result?.protocolVersion, '2025-06-18');
    assert.not.ok(svc.answers.has(1) || svc.answers.has(2), 'what was dropped got no answer (the log said so)');
    assert.is(svc.count(/hub restarted/), 2, 'the line killed two hubs, not more');
  } finally {
    await svc.stop();
  }
});

Stdio.run();

// ---------------------------------------------------------------------------------------------
const Two = suite('e2e hub (two hubs, priorities)');
let two: Service;

Two.before(async () => {
  two = await startService({
    config: { mcpServers: { fixture: fixture(), gentle: fixture({ nice: 15 }), eager: fixture({ nice: 3 }) } },
    args: ['--health-rate-limit', '0', '--mcp-workers', '2', '--worker-nice', '7', '--max-sessions', '4'],
  });
  await two.waitFor(async () => (await two.get('/health')).body.status === 'healthy', 'healthy', 20_000);
});
Two.after(async () => {
  await two.stop();
});

Two('hub :: 2025 sessions spread over both hubs and each stays on its hub; a change reaches sessions on both', async () => {
  const sessions: { client: V1Client; transport: V1HttpTransport; changes: number }[] = [];
  for (let i = 0; i < 4; i++) {
    const client = new V1Client({ name: `s${i}`, version: '1.0.0' });
    const transport = new V1HttpTransport(new URL(`${two.base}/mcp`));
    const entry = { client, transport, changes: 0 };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void entry.changes++);
    await client.connect(transport);
    sessions.push(entry);
  }
  const hubsUsed = new Set(sessions.map((s) => /^h(\d+)-/.exec(s.transport.sessionId ?? '')?.[1]));
  assert.equal([...hubsUsed].sort(), ['0', '1'], 'round-robin over the two hubs');
  // Every session keeps working: its requests reach the hub that holds it.
  for (const { client } of sessions) for (let i = 0; i < 3; i++) assert.equal((await client.callTool({ name: 'fixture_agent_add', arguments: { a: i, b: 1 } })).content, [{ type: 'text', text: String(i + 1) }]);
  const config = JSON.parse(fs.readFileSync(two.configFile, 'utf8'));
  writeConfig(two.configFile, { mcpServers: { ...config.mcpServers, fixture: fixture({ disabledTools: ['add'] }) } });
  await poll(async () => sessions.every((s) => s.changes > 0), 'list_changed on every session, both hubs');
  for (const { client, transport } of sessions) {
    await transport.terminateSession();
    await client.close();
  }
});

// Found by an outside check: each hub kept ceil(max / hubs) sessions and requests go round-robin,
// so a service with room refused every other initialize.
Two('hub :: --max-sessions holds for the service, whichever hub a session is on', async () => {
  const connect = async () => {
    const client = new V1Client({ name: 'cap', version: '1.0.0' });
    const transport = new V1HttpTransport(new URL(`${two.base}/mcp`));
    await client.connect(transport);
    return { client, transport, hub: /^h(\d+)-/.exec(transport.sessionId ?? '')?.[1] };
  };
  const refusedNow = async () => {
    const answer = await fetch(`${two.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'over', version: '1' } } }),
    });
    const text = await answer.text();
    return answer.status === 503 && /Too many sessions: this service keeps at most 4 \(--max-sessions\)/.test(text);
  };
  const open = [await connect(), await connect(), await connect(), await connect()];
  assert.ok(await refusedNow(), 'the fifth is refused');
  assert.ok(await refusedNow(), 'on the other hub too');
  // The sessions of hub 0 leave: their places are free on whichever hub a new one lands.
  const leaving = open.filter((s) => s.hub === '0');
  assert.ok(leaving.length >= 1 && leaving.length < 4, `sessions on both hubs: ${open.map((s) => s.hub).join(',')}`);
  for (const { client, transport } of leaving) {
    await transport.terminateSession();
    await client.close();
  }
  const staying = open.filter((s) => s.hub !== '0');
  for (let i = 0; i < leaving.length; i++) staying.push(await connect());
  assert.ok(new Set(staying.map((s) => s.hub)).size === 2, 'the new ones landed on both hubs');
  assert.ok(await refusedNow(), 'full again');
  for (const { client, transport } of staying) {
    await transport.terminateSession();
    await client.close();
  }
});

Two('hub :: a session id naming a hub this service does not have is unknown (404), not a hub that is down (503)', async () => {
  for (const id of ['h2-abc', 'h7-abc']) {
    const post = await fetch(`${two.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.is(post.status, 404, `POST /mcp with ${id}: ${await post.text()}`);
    const sse = await fetch(`${two.base}/messages?sessionId=${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.is(sse.status, 404, `POST /messages with ${id}: ${await sse.text()}`);
  }
});

// Field 19 of a task's stat is its nice value.
function niceOf(pid: number, tid = pid): number {
  const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

// "/autogroup-399 nice 0" -> 0; undefined where the task heads no group (root group, cpu cgroup).
function autogroupNice(pid: number): number | undefined {
  return parseAutogroup(fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.nice;
}

Two('hub :: the main thread keeps its priority; hubs, backend workers and backends run at --worker-nice, a server nicer still', async () => {
  const pid = two.child.pid!;
  assert.is(niceOf(pid), 0, 'the main thread (the probe path)');
  const threads = fs.readdirSync(`/proc/${pid}/task`).map(Number);
  const nice7 = threads.filter((tid) => niceOf(pid, tid) === 7).length;
  const nice15 = threads.filter((tid) => niceOf(pid, tid) === 15).length;
  assert.ok(nice7 >= 3, `two hubs and a backend worker at nice 7 (found ${nice7})`);
  assert.ok(nice15 >= 1, `the nicer backend's worker at 15 (found ${nice15})`);
  const status = await pids(two);
  assert.is(niceOf(status.fixture!), 7, 'a backend process');
  assert.is(niceOf(status.gentle!), 15, 'a backend process with its own nice');
  // A nice below the service's is raised to it (a higher priority needs privileges), and the log says so.
  assert.is(niceOf(status.eager!), 7, 'a backend asking for nice 3 runs at the service\'s 7');
  const raised = two.logs.find((l) => l.backend === 'eager' && l.level === 40 && /nice 3 is below the service's --worker-nice 7: the backend runs at 7/.test(String(l.msg)));
  assert.ok(raised, 'a warning names the backend and the nice it runs at');
  // A backend heads its own session; where that is its own autogroup, the group is lowered too,
  // or the kernel would weigh it as much as the whole service.
  // Where the kernel groups tasks by session. The service shares this runner's group (in the
  // kernel's root group on CI: nothing printed), which is never lowered.
  const autogroups = '/proc/sys/kernel/sched_autogroup_enabled';
  if (fs.existsSync(autogroups) && fs.readFileSync(autogroups, 'utf8').trim() === '1') {
    assert.is(autogroupNice(pid), autogroupNice(process.pid), "the service's group keeps its weight");
    // The kernel takes one change per 100 ms: the second backend's may come a little later.
    await poll(async () => autogroupNice(status.fixture!) === 7 && autogroupNice(status.gentle!) === 15, "the backends' groups at 7 and 15");
  }
  assert.ok(descendants(pid).length >= 2);
});

Two.run();
