// End to end: real SDK clients (v2, and v1 as a legacy peer) through the real `agent serve`
// against three kinds of backend: a v2 stdio fixture, server-everything, a streamable-HTTP fixture.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type HttpBackend, startHttpBackend } from '../fixtures/http-backend.ts';
import { descendants, isAlive } from '../helpers/processes.ts';
import { EVERYTHING_SERVER, FIXTURE_SERVER, poll, ROOT, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const LEGACY_SERVER = path.join(ROOT, 'test/fixtures/legacy-stdio-server.mjs');
const node = process.execPath;
const v2 = (url: URL, mode: 'legacy' | 'auto' = 'auto') => {
  const client = new Client({ name: 'e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  return { client, connect: () => client.connect(new StreamableHTTPClientTransport(url)) };
};

let remote: HttpBackend;
let svc: Service;
let servers: Record<string, unknown>;

const E = suite('e2e mcp (streamable HTTP)');

E.before(async () => {
  remote = await startHttpBackend();
  servers = {
    fixture: { command: node, args: [FIXTURE_SERVER], tags: ['local', 'v2'] },
    everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'], tags: ['reference'] },
    remote: { url: remote.url, tags: ['remote'] },
    slowpoke: { command: node, args: [FIXTURE_SERVER], tags: ['local'], requestTimeout: 400 },
    'legacy-auto': { command: node, args: [LEGACY_SERVER], tags: ['legacy'] },
    'legacy-legacy': { command: node, args: [LEGACY_SERVER], protocolVersion: 'legacy', tags: ['legacy'] },
    'legacy-pinned': { command: node, args: [LEGACY_SERVER], protocolVersion: '2026-07-28', tags: ['legacy'] },
    'modern-legacy': { command: node, args: [FIXTURE_SERVER], protocolVersion: 'legacy', tags: ['v2'] },
    'modern-pinned': { command: node, args: [FIXTURE_SERVER], protocolVersion: '2026-07-28', tags: ['v2'] },
  };
  svc = await startService({ config: { mcpServers: servers }, args: ['--health-info-level', 'basic', '--health-rate-limit', '0', '--allowed-origins', 'http://localhost:6274'] });
  await svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    // legacy-pinned cannot connect (it is made to fail); every other backend must have.
    const details: any[] = body.servers?.details ?? [];
    return details.length === 9 && details.every((d) => (d.name === 'legacy-pinned' ? d.status === 'error' : d.status === 'connected')) && body;
  }, 'every backend connected, legacy-pinned failed', 30_000);
});

E.after(async () => {
  await svc.stop();
  await remote.close();
});

E('e2e mcp :: a 2026-07-28 client lists, calls, reads, gets prompts and completes across backends', async () => {
  const { client, connect } = v2(new URL(`${svc.base}/mcp`), 'auto');
  await connect();
  assert.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['fixture_agent_echo', 'everything_agent_get-sum', 'remote_agent_shout', 'legacy-auto_agent_echo']) assert.ok(names.includes(name), name);
  assert.not.ok(names.some((n) => n.startsWith('legacy-pinned_agent_')), 'a backend that failed to connect exposes nothing');
  assert.equal((await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'hi' } })).content, [{ type: 'text', text: 'hi' }]);
  assert.equal((await client.callTool({ name: 'remote_agent_shout', arguments: { text: 'hi' } })).content, [{ type: 'text', text: 'HI' }]);
  const sum = await client.callTool({ name: 'everything_agent_get-sum', arguments: { a: 2, b: 3 } });
  assert.match(JSON.stringify(sum.content), /5/);
  const read = await client.readResource({ uri: 'fixture_agent_fixture://hello' });
  assert.equal(read.contents, [{ uri: 'fixture_agent_fixture://hello', mimeType: 'text/plain', text: 'hello' }]);
  const prompt = await client.getPrompt({ name: 'fixture_agent_greet', arguments: { name: 'Ada' } });
  assert.equal(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
  const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'everything_agent_completable-prompt' }, argument: { name: 'department', value: 'En' } });
  assert.ok(completion.completion.values.includes('Engineering'), JSON.stringify(completion));
  assert.match(client.getInstructions() ?? '', /## fixture\nTest fixture server/);
  await client.close();
});

// A raw request, so the test sets Host itself (fetch does not let it).
function raw(port: number, method: string, route: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: route, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

E('e2e mcp :: Host and Origin are checked on every non-health route (DNS rebinding), not on health', async () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const own = `127.0.0.1:${svc.port}`;
  const evil = `evil.example:${svc.port}`;
  const rebinding = await raw(svc.port, 'POST', '/mcp', { ...mcpHeaders, host: evil, origin: 'http://evil.example' }, init);
  assert.is(rebinding.status, 403);
  assert.is(JSON.parse(rebinding.body).error, 'forbidden_host');
  assert.match(JSON.parse(rebinding.body).message, /^Host header "evil\.example:\d+" is not allowed/);
  const foreignOrigin = await raw(svc.port, 'POST', '/mcp', { ...mcpHeaders, host: own, origin: 'http://evil.example' }, init);
  assert.is(foreignOrigin.status, 403);
  assert.equal(JSON.parse(foreignOrigin.body), { error: 'forbidden_origin', message: 'Origin header "http://evil.example" is not allowed; admit it with --allowed-origins http://evil.example' });
  for (const [method, route] of [['GET', '/sse'], ['POST', '/messages?sessionId=x'], ['GET', '/api/v1/servers'], ['GET', '/api/v1/tools']] as const) {
    const res = await raw(svc.port, method, route, { host: own, origin: 'http://evil.example' });
    assert.is(res.status, 403, `${method} ${route}`);
    assert.is((await raw(svc.port, method, route, { host: evil })).status, 403, `${method} ${route} with a foreign Host`);
  }
  for (const route of ['/health', '/health/live', '/health/ready', '/health/mcp', '/health/mcp/fixture']) {
    assert.is((await raw(svc.port, 'GET', route, { host: evil, origin: 'http://evil.example' })).status, 200, route);
  }
  // A non-browser client (no Origin) and the allowed Inspector origin are served.
  assert.is((await raw(svc.port, 'POST', '/mcp', { ...mcpHeaders, host: own }, init)).status, 200);
  assert.is((await raw(svc.port, 'POST', '/mcp', { ...mcpHeaders, host: `localhost:${svc.port}`, origin: 'http://localhost:6274' }, init)).status, 200);
  assert.is((await raw(svc.port, 'GET', '/api/v1/servers', { host: own, origin: `http://localhost:${svc.port}` })).status, 200, 'the service\'s own origin');
});

E('e2e mcp :: an admitted browser origin gets CORS: the preflight is answered, answers expose the session id; others and non-browser clients get none', async () => {
  const own = `127.0.0.1:${svc.port}`;
  const inspector = 'http://localhost:6274';
  const preflight = await raw(svc.port, 'OPTIONS', '/mcp', { host: own, origin: inspector, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version' });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers['access-control-allow-origin'], inspector);
  assert.is(preflight.headers['access-control-allow-methods'], 'GET, POST, DELETE');
  // A read-only route is told so (found by an outside check: it was told POST and DELETE too).
  const readOnly = await raw(svc.port, 'OPTIONS', '/api/v1/servers', { host: own, origin: inspector, 'access-control-request-method': 'GET' });
  assert.equal([readOnly.status, readOnly.headers['access-control-allow-methods']], [204, 'GET, HEAD']);
  assert.is(preflight.headers['access-control-allow-headers'], 'content-type, mcp-session-id, mcp-protocol-version');
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
  const answer = await raw(svc.port, 'POST', '/mcp', { host: own, origin: inspector, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, init);
  assert.is(answer.status, 200);
  assert.is(answer.headers['access-control-allow-origin'], inspector);
  assert.match(String(answer.headers['access-control-expose-headers']), /Mcp-Session-Id/);
  assert.ok(answer.headers['mcp-session-id'], 'the session id a page can now read');
  const foreign = await raw(svc.port, 'OPTIONS', '/mcp', { host: own, origin: 'http://evil.example', 'access-control-request-method': 'POST' });
  assert.is(foreign.status, 403);
  assert.is(foreign.headers['access-control-allow-origin'], undefined);
  const plain = await raw(svc.port, 'POST', '/mcp', { host: own, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, init);
  assert.is(plain.headers['access-control-allow-origin'], undefined, 'no Origin, no CORS');
});

E('e2e mcp :: params of the wrong type are answered -32602 naming the field, not -32603 with a dump', async () => {
  const own = `127.0.0.1:${svc.port}`;
  const headers = { host: own, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'typed', version: '1' } } });
  const session = String((await raw(svc.port, 'POST', '/mcp', headers, init)).headers['mcp-session-id']);
  const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await raw(svc.port, 'POST', '/mcp', inSession, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  for (const [method, params, field] of [
    ['tools/list', { cursor: 5 }, 'params.cursor'],
    ['resources/read', { uri: 5 }, 'params.uri'],
    ['tools/call', { name: 5 }, 'params.name'],
    ['logging/setLevel', { level: 'loud' }, 'params.level'],
  ] as const) {
    const answer = await raw(svc.port, 'POST', '/mcp', inSession, JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }));
    const data = answer.body.split('\n').find((line) => line.startsWith('data: '));
    const error = JSON.parse(data ? data.slice(6) : answer.body).error;
    assert.is(error.code, -32602, `${method}: ${JSON.stringify(error)}`);
    assert.ok(error.message.startsWith(`Invalid params for ${method}: ${field}: `), error.message);
    assert.not.match(error.message, /\[\s*\{/, 'no JSON dump');
  }
});

E('e2e mcp :: a long call reports progress to the client that made it', async () => {
  for (const mode of ['auto', 'legacy'] as const) {
    const { client, connect } = v2(new URL(`${svc.base}/mcp`), mode);
    await connect();
    const seen: number[] = [];
    const result = await client.callTool({ name: 'fixture_agent_slow', arguments: { steps: 3, delayMs: 50 } }, { onprogress: (p) => void seen.push(p.progress) });
    assert.equal(result.content, [{ type: 'text', text: 'done after 3 steps' }]);
    assert.equal(seen, [1, 2, 3], mode);
    await client.close();
  }
});

E('e2e mcp :: a 2025 client (v1 SDK) works and pages through a small page size transparently', async () => {
  const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
  await client.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  assert.is(client.getServerVersion()?.name, 'agent');
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('fixture_agent_add'));
  assert.equal((await client.callTool({ name: 'fixture_agent_add', arguments: { a: 2, b: 40 } })).content, [{ type: 'text', text: '42' }]);
  const seen: number[] = [];
  await client.callTool({ name: 'fixture_agent_slow', arguments: { steps: 2, delayMs: 20 } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
  assert.equal(seen, [1, 2]);
  // DELETE ends the session: the same session id is then unknown.
  const transport = client.transport as V1HttpTransport;
  const sessionId = transport.sessionId!;
  await transport.terminateSession();
  const after = await fetch(`${svc.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });
  assert.is(after.status, 404);
  await client.close();
});

E('e2e mcp :: a 2025 session DELETEd with a call in flight: the call is answered call_cancelled, the backend told to cancel (found by an outside check)', async () => {
  const { client, connect } = v2(new URL(`${svc.base}/mcp`), 'legacy');
  await connect();
  const transport = client.transport as StreamableHTTPClientTransport;
  const logsBefore = svc.logs.length;
  let running = () => {};
  const started = new Promise<void>((resolve) => (running = resolve));
  const call = client.callTool({ name: 'fixture_agent_slow', arguments: { steps: 40, delayMs: 250 } }, { onprogress: () => running() }).then(
    () => 'answered',
    (error: { code?: number; message?: string; data?: unknown }) => error,
  );
  await started; // the backend runs the call
  await transport.terminateSession();
  const settled = await Promise.race([call, new Promise((r) => setTimeout(() => r('still pending after 10 s'), 10_000))]);
  assert.type(settled, 'object', String(settled));
  const error = settled as { code?: number; message?: string; data?: unknown };
  assert.is(error.code, -32603);
  assert.equal(error.data, { code: 'call_cancelled' });
  assert.match(String(error.message), /The session was ended \(DELETE\) while this request was in flight/);
  await svc.waitForLog((l) => svc.logs.indexOf(l) >= logsBefore && typeof l.msg === 'string' && l.msg.includes('slow call cancelled'));
  await client.close();
});

E('e2e mcp :: a method /mcp does not serve gets 405, a /messages post without its session 400', async () => {
  for (const method of ['PUT', 'PATCH', 'HEAD'] as const) {
    const res = await fetch(`${svc.base}/mcp`, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, ...(method === 'HEAD' ? {} : { body: '{}' }) });
    assert.is(res.status, 405, method);
    assert.is(res.headers.get('allow'), 'GET, POST, DELETE', method);
    if (method !== 'HEAD') assert.match(await res.text(), `Method ${method} is not allowed on /mcp`, method);
  }
  const unnamed = await fetch(`${svc.base}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.is(unnamed.status, 400);
  assert.match(await unnamed.text(), 'the sessionId query parameter is required');
});

E('e2e mcp :: a backend log message during a call reaches the client that made the call', async () => {
  const client = new V1Client({ name: 'e2e-v1-logs', version: '1.0.0' });
  const received: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void received.push(n.params));
  await client.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  const result = await client.callTool({ name: 'modern-legacy_agent_chatter', arguments: { message: 'hello from the backend' } });
  assert.equal(result.content, [{ type: 'text', text: 'logged' }]);
  await poll(async () => received.length > 0, 'the forwarded log message');
  assert.equal(received[0], { level: 'info', logger: 'fixture', data: { said: 'hello from the backend' } });
  await client.close();
});

E("e2e mcp :: a 2026-07-28 backend's log messages reach a 2025 session at its level, and a 2026-07-28 request that asked for them", async () => {
  const legacy = new V1Client({ name: 'e2e-v1-logs-modern', version: '1.0.0' });
  const heard: unknown[] = [];
  legacy.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void heard.push(n.params));
  await legacy.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  await legacy.callTool({ name: 'modern-pinned_agent_chatter', arguments: { message: 'to a 2025 session' } });
  await poll(async () => heard.length > 0, 'the log message of the 2026-07-28 backend');
  assert.equal(heard[0], { level: 'info', logger: 'fixture', data: { said: 'to a 2025 session', asked: 'info' } }, 'a session that set no level: info and above');
  await legacy.setLoggingLevel('debug');
  await legacy.callTool({ name: 'modern-pinned_agent_chatter', arguments: { message: 'at debug' } });
  await poll(async () => heard.length > 1, 'the next message');
  assert.equal(heard[1], { level: 'info', logger: 'fixture', data: { said: 'at debug', asked: 'debug' } }, 'the backend is told the level the session chose');
  await legacy.setLoggingLevel('error');
  await legacy.callTool({ name: 'modern-pinned_agent_chatter', arguments: { message: 'below the level' } });
  await new Promise((r) => setTimeout(r, 200));
  assert.is(heard.length, 2, 'info is below error');
  await legacy.close();

  const { client, connect } = v2(new URL(`${svc.base}/mcp`), 'auto');
  const told: unknown[] = [];
  client.setNotificationHandler('notifications/message', (n) => void told.push(n.params));
  await connect();
  assert.is(client.getProtocolEra(), 'modern');
  const seen = svc.logs.length;
  await client.callTool({ name: 'modern-legacy_agent_chatter', arguments: { message: 'unasked' } });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(told, [], 'a 2026-07-28 request that asked for no log level gets none');
  const unasked = svc.logs.slice(seen).find((l) => l.msg === 'backend log message' && JSON.stringify(l.data).includes('unasked'));
  assert.ok(unasked, 'the message of a 2025 backend then goes to the service log');
  // At its own severity, its MCP level beside it: a second `level` field overrode pino's number (found by an outside check).
  assert.equal([unasked!.level, unasked!.mcpLevel], [30, 'info']);
  for (const backend of ['modern-pinned', 'modern-legacy']) {
    await client.callTool({ name: `${backend}_agent_chatter`, arguments: { message: `asked of ${backend}` }, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    await poll(async () => told.some((p) => JSON.stringify(p).includes(`asked of ${backend}`)), `the log message of ${backend} on the request's stream`);
  }
  await client.close();
});

E('e2e mcp :: resource URIs inside results are client-facing and can be read back (server-everything)', async () => {
  for (const mode of ['auto', 'legacy'] as const) {
    const { client, connect } = v2(new URL(`${svc.base}/mcp`), mode);
    await connect();
    const links = await client.callTool({ name: 'everything_agent_get-resource-links', arguments: { count: 2 } });
    const linked = (links.content as { type: string; uri?: string }[]).filter((b) => b.type === 'resource_link');
    assert.is(linked.length, 2, mode);
    for (const link of linked) {
      assert.ok(link.uri!.startsWith('everything_agent_demo://'), `${mode}: ${link.uri}`);
      const read = await client.readResource({ uri: link.uri! });
      assert.is(read.contents[0]!.uri, link.uri, `${mode}: read back under the same URI`);
    }
    const reference = await client.callTool({ name: 'everything_agent_get-resource-reference', arguments: { resourceType: 'Text', resourceId: 2 } });
    const embedded = (reference.content as { type: string; resource?: { uri: string } }[]).find((b) => b.type === 'resource');
    assert.ok(embedded?.resource?.uri.startsWith('everything_agent_demo://'), `${mode}: ${JSON.stringify(embedded)}`);
    const prompt = await client.getPrompt({ name: 'everything_agent_resource-prompt', arguments: { resourceType: 'Text', resourceId: '3' } });
    const inPrompt = prompt.messages.map((m) => m.content as { type: string; resource?: { uri: string } }).find((c) => c.type === 'resource');
    assert.ok(inPrompt?.resource?.uri.startsWith('everything_agent_demo://'), `${mode}: ${JSON.stringify(inPrompt)}`);
    assert.is((await client.readResource({ uri: inPrompt!.resource!.uri })).contents[0]!.uri, inPrompt!.resource!.uri);
    await client.close();
  }
});

E('e2e mcp :: a backend log message goes to its one session only; with two sessions in flight, to the service log', async () => {
  const connectV1 = async (name: string) => {
    const client = new V1Client({ name, version: '1.0.0' });
    const received: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void received.push(n.params));
    await client.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
    return { client, received };
  };
  const a = await connectV1('user-a');
  const b = await connectV1('user-b');
  // a keeps a call in flight on the backend while b's call logs: the message is neither's.
  const busy = a.client.callTool({ name: 'modern-legacy_agent_slow', arguments: { steps: 10, delayMs: 100 } });
  await new Promise((r) => setTimeout(r, 200));
  const seen = svc.logs.length;
  assert.equal((await b.client.callTool({ name: 'modern-legacy_agent_chatter', arguments: { message: 'private to b' } })).content, [{ type: 'text', text: 'logged' }]);
  await busy;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(a.received, [], 'another user never sees it');
  assert.equal(b.received, [], 'not sent while another session had calls in flight there');
  const logged = svc.logs.slice(seen).find((l) => l.msg === 'backend log message' && l.backend === 'modern-legacy');
  assert.equal(logged?.data, { said: 'private to b' }, 'the service log has it');
  assert.equal([logged?.level, logged?.mcpLevel], [30, 'info']);
  // Alone on the backend, at or above the level the session chose.
  await b.client.setLoggingLevel('error');
  await b.client.callTool({ name: 'modern-legacy_agent_chatter', arguments: { message: 'below the level' } });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(b.received, [], 'info is below the error level b chose');
  await b.client.setLoggingLevel('debug');
  await b.client.callTool({ name: 'modern-legacy_agent_chatter', arguments: { message: 'alone' } });
  await poll(async () => b.received.length === 1, 'the message for b');
  assert.equal(b.received[0], { level: 'info', logger: 'fixture', data: { said: 'alone' } });
  assert.equal(a.received, []);
  await a.client.close();
  await b.client.close();
});

E('e2e mcp :: a backend error message reaches the client sanitized', async () => {
  const { client, connect } = v2(new URL(`${svc.base}/mcp`), 'auto');
  await connect();
  const message = await client.readResource({ uri: 'fixture_agent_fixture://fail' }).then(() => 'no error', (e: Error) => e.message);
  assert.match(message, /cannot read \[PATH\] with token=\[REDACTED\] from 10\.1\.2\.0/);
  assert.not.match(message, /secret\.pem|abc123/);
  await client.close();
});

E('e2e mcp :: a resource its backend does not have is named as the client asked for it', async () => {
  for (const version of ['legacy', 'auto'] as const) {
    const { client, connect } = v2(new URL(`${svc.base}/mcp`), version);
    await connect();
    const error = await client.readResource({ uri: 'fixture_agent_nope://x' }).then(
      () => null,
      (e: { message: string; data?: unknown }) => e,
    );
    assert.ok(error, version);
    assert.match(error!.message, "Unknown resource: fixture_agent_nope://x (backend 'fixture' has no such resource)", version);
    assert.equal(error!.data, { uri: 'fixture_agent_nope://x', code: 'unknown_resource', backend: 'fixture' }, version);
    await client.close();
  }
});

E('e2e mcp :: errors name the unknown tool, the disconnected backend and the timeout', async () => {
  const { client, connect } = v2(new URL(`${svc.base}/mcp`), 'auto');
  await connect();
  const failure = async (name: string, args: Record<string, unknown> = {}) => {
    try {
      await client.callTool({ name, arguments: args });
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };
  assert.match(await failure('nope_agent_x'), /Unknown tool: nope_agent_x/);
  assert.match(await failure('fixture_agent_missing'), /Unknown tool: fixture_agent_missing/);
  assert.match(await failure('legacy-pinned_agent_echo', { text: 'x' }), /Backend 'legacy-pinned' is not connected \(status: error\)/);
  assert.match(await failure('slowpoke_agent_slow', { steps: 1, delayMs: 3000 }), /timed out after 400 ms \(requestTimeout\)/);
  assert.equal((await client.callTool({ name: 'slowpoke_agent_echo', arguments: { text: 'still fine' } })).content, [{ type: 'text', text: 'still fine' }]);
  await client.close();
});

E('e2e mcp :: each protocolVersion mode against a legacy (v1) and a modern (v2) backend', async () => {
  const connected = (name: string) => svc.logs.find((l) => l.msg === 'backend connected' && l.backend === name)?.protocolVersion;
  assert.is(connected('legacy-auto'), '2025-11-25', 'auto falls back on a positive legacy answer');
  assert.is(connected('legacy-legacy'), '2025-11-25');
  assert.is(connected('modern-legacy'), '2025-11-25', 'legacy pins the 2025 client');
  assert.is(connected('modern-pinned'), '2026-07-28');
  assert.is(connected('fixture'), '2026-07-28', 'auto prefers the modern protocol');
  assert.is(connected('legacy-pinned'), undefined);
  const { body } = await svc.get('/health');
  const pinned = body.servers.details.find((d: any) => d.name === 'legacy-pinned');
  assert.is(pinned.status, 'error');
  assert.match(pinned.lastError, /did not offer pinned protocol version 2026-07-28/);
});

E('e2e mcp :: tag filters select the backends a session sees; a malformed filter is a 400', async () => {
  const list = async (query: string) => {
    const { client, connect } = v2(new URL(`${svc.base}/mcp?${query}`), 'auto');
    await connect();
    const servers = new Set((await client.listTools()).tools.map((t) => t.name.split('_agent_')[0]));
    await client.close();
    return [...servers].sort();
  };
  assert.equal(await list('tags=remote'), ['remote']);
  assert.equal(await list('tags=reference,REMOTE'), ['everything', 'remote']);
  assert.equal(await list(`tag-filter=${encodeURIComponent('local and not v2')}`), ['slowpoke']);
  assert.equal(await list(`tag-filter=${encodeURIComponent('(legacy or v2) and not local')}`), ['legacy-auto', 'legacy-legacy', 'modern-legacy', 'modern-pinned']);
  // A tool of a backend outside the filter is unknown to that session.
  const { client, connect } = v2(new URL(`${svc.base}/mcp?tags=remote`), 'legacy');
  await connect();
  const outside = await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'x' } }).then(() => 'no error', (e: Error) => e.message);
  assert.match(outside, /Unknown tool: fixture_agent_echo/);
  await client.close();
  const bad = await fetch(`${svc.base}/mcp?tag-filter=${encodeURIComponent('(local or')}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.is(bad.status, 400);
  assert.equal(await bad.json(), { error: 'invalid_tag_filter', message: 'expected a tag, "not" or "(", found the end of the expression at position 10' });
  const both = await fetch(`${svc.base}/mcp?tags=a&tag-filter=b`, { method: 'POST', body: '{}' });
  assert.is(both.status, 400);
});

E('e2e mcp :: a POST body that is not JSON is refused with -32700: a new 2025 session, an open one, a 2026-07-28 request, a legacy SSE session', async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const refusal = async (res: Response, what: string) => {
    assert.is(res.status, 400, what);
    assert.is(((await res.json()) as { error?: { code?: number } }).error?.code, -32700, what);
  };
  await refusal(await fetch(`${svc.base}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0",' }), 'no session');
  const init = await fetch(`${svc.base}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a 2025 session opened');
  await init.body?.cancel();
  await refusal(await fetch(`${svc.base}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' }, body: 'not json' }), 'in the session');
  await fetch(`${svc.base}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session! } });
  await refusal(await fetch(`${svc.base}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, body: '[{' }), '2026-07-28');
  // A legacy SSE session: its endpoint event names the URL to post to.
  const stream = await fetch(`${svc.base}/sse`, { headers: { accept: 'text/event-stream' } });
  const reader = stream.body!.getReader();
  let events = '';
  while (!/data: (\S+)/.test(events)) events += new TextDecoder().decode((await reader.read()).value);
  const endpoint = /data: (\S+)/.exec(events)![1]!;
  await refusal(await fetch(new URL(endpoint, svc.base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":' }), 'SSE session');
  const accepted = await fetch(new URL(endpoint, svc.base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
  assert.is(accepted.status, 202, 'a JSON message in the same session is taken');
  await reader.cancel();
});

E('e2e mcp :: the legacy SSE endpoint serves v1 and v2 SSE clients', async () => {
  const v1 = new V1Client({ name: 'e2e-v1-sse', version: '1.0.0' });
  await v1.connect(new V1SseTransport(new URL(`${svc.base}/sse?tags=remote`)));
  assert.equal((await v1.listTools()).tools.map((t) => t.name), ['remote_agent_shout']);
  assert.equal((await v1.callTool({ name: 'remote_agent_shout', arguments: { text: 'sse' } })).content, [{ type: 'text', text: 'SSE' }]);
  await v1.close();
  const client = new Client({ name: 'e2e-v2-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${svc.base}/sse`)));
  assert.equal((await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'over sse' } })).content, [{ type: 'text', text: 'over sse' }]);
  await client.close();
});

E('e2e mcp :: list_changed reaches 2025 and 2026-07-28 clients when a backend stops and comes back', async () => {
  const v1 = new V1Client({ name: 'e2e-v1-watch', version: '1.0.0' });
  let v1Changes = 0;
  v1.setNotificationHandler(ToolListChangedNotificationSchema, async () => void v1Changes++);
  await v1.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  let modernTools: string[] | null = null;
  let modernChanges = 0;
  const modern = new Client(
    { name: 'e2e-v2-watch', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, listChanged: { tools: { debounceMs: 0, onChanged: (_e, tools) => { modernChanges++; modernTools = (tools ?? []).map((t) => t.name); } } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  await new Promise((r) => setTimeout(r, 300)); // the v1 client opens its GET stream after initialize

  writeConfig(svc.configFile, { mcpServers: { ...servers, remote: { ...(servers.remote as object), disabled: true } } });
  await poll(async () => v1Changes >= 1 && modernChanges >= 1, 'list_changed after the backend stopped');
  assert.not.ok((await v1.listTools()).tools.some((t) => t.name === 'remote_agent_shout'));
  assert.not.ok(modernTools!.includes('remote_agent_shout'));

  const [v1Before, modernBefore] = [v1Changes, modernChanges];
  writeConfig(svc.configFile, { mcpServers: servers });
  await poll(async () => v1Changes > v1Before && modernTools?.includes('remote_agent_shout'), 'list_changed after the backend came back');
  assert.ok((await v1.listTools()).tools.some((t) => t.name === 'remote_agent_shout'));
  assert.ok(modernChanges > modernBefore);
  await v1.close();
  await modern.close();
});

E.run();

// ---------------------------------------------------------------------------------------------
const S = suite('e2e mcp (stdio serve mode)');

/** `agent serve --transport stdio --no-http` on its own configuration: its stdout and stderr as text so far, and its exit. */
function stdioService(servers: Record<string, unknown>) {
  const configFile = path.join(tempDir(), 'mcp.json');
  writeConfig(configFile, { mcpServers: servers });
  const child = spawn(node, ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', configFile], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { out: '', err: '' };
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output.out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output.err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output, exited };
}

S('e2e mcp :: --transport stdio --no-http serves one client; EOF on stdin shuts down cleanly', async () => {
  const dir = tempDir();
  const configFile = path.join(dir, 'mcp.json');
  writeConfig(configFile, { mcpServers: { fixture: { command: node, args: [FIXTURE_SERVER] } } });
  const transport = new StdioClientTransport({
    command: node,
    args: ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', configFile],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  const pid = transport.pid!;
  const tools = await poll(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    return names.includes('fixture_agent_echo') && names;
  }, 'fixture tools over stdio');
  assert.ok(tools.includes('fixture_agent_pid'));
  assert.equal((await client.callTool({ name: 'fixture_agent_echo', arguments: { text: 'stdio' } })).content, [{ type: 'text', text: 'stdio' }]);
  assert.not.match(stderr, /listening on/, 'no HTTP listener with --no-http');
  const tree = descendants(pid);
  assert.ok(tree.length >= 1, 'the backend runs under the service');
  await client.close(); // closes stdin: EOF
  await poll(async () => !isAlive(pid), 'the service to exit after EOF', 10_000);
  await poll(async () => tree.every((p) => !isAlive(p)), 'backends to end', 5_000);
  assert.match(stderr, /stdin closed/);
  assert.match(stderr, /"msg":"stopped"/);
});

S('e2e mcp :: requests piped in and stdin closed at once are all answered (a last line without its newline too), then the service exits', async () => {
  const { child, output, exited } = stdioService({ fixture: { command: node, args: [FIXTURE_SERVER] } });
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'piped', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    // Longer than the drain's margin: the deadline counts from when calls can be routed, not from an EOF read before the configuration loaded.
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_agent_slow', arguments: { steps: 6, delayMs: 1000 } } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'last' } } },
  ].map((m) => JSON.stringify(m));
  child.stdin.end(lines.join('\n'));
  assert.is(await exited, 0, output.err);
  const answers = new Map(
    output.out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((m) => 'id' in m)
      .map((m) => [m.id, m]),
  );
  assert.equal([...answers.keys()].sort(), [1, 2, 3]);
  assert.is(answers.get(1).result.serverInfo.name, 'agent');
  assert.equal(answers.get(2).result.content, [{ type: 'text', text: 'done after 6 steps' }], 'the slow call finished after EOF');
  assert.equal(answers.get(3).result.content, [{ type: 'text', text: 'last' }]);
  assert.match(output.err, /"reason":"stdin closed"/);
  const notifications = output.out.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((m) => !('id' in m)).map((m) => m.method);
  assert.equal(notifications, [], 'no list_changed: the initialize answer already had every list');
});

S('e2e mcp :: stopped during the initial load, a stdio service answers the requests that waited with the shutdown error, at once', async () => {
  // A backend that never answers initialize: the initial load waits its full 10 s.
  const { child, output, exited } = stdioService({ mute: { command: node, args: ['-e', 'setTimeout(() => {}, 60_000)'] } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'early', version: '1' } } })}\n`);
  // Hub 0 up (stdin flows to it from then on) and the configuration loaded: the initial load is under way.
  await poll(async () => /configuration loaded/.test(output.err) && /hub ready/.test(output.err), 'the configuration loaded and hub 0 up', 20_000);
  await new Promise((r) => setTimeout(r, 300));
  const stoppedAt = Date.now();
  child.kill('SIGTERM');
  assert.is(await exited, 0, output.err);
  assert.ok(Date.now() - stoppedAt < 5_000, `stopped in ${Date.now() - stoppedAt} ms: the initial load was not waited for`);
  assert.equal(JSON.parse(output.out.trim()), { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'The service is shutting down: the request was not completed', data: { code: 'service_stopping' } } });
});

S('e2e mcp :: a client that closed its end of stdout: the service stops with exit 1, and its last line says answers were lost', async () => {
  const { child, output, exited } = stdioService({ fixture: { command: node, args: [FIXTURE_SERVER] } });
  child.stdout.destroy();
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'nobody reads this' } } },
  ].map((m) => `${JSON.stringify(m)}\n`);
  child.stdin.end(lines.join(''));
  assert.is(await exited, 1, output.err);
  const logged = output.err.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.ok(logged.some((l) => l.msg === 'shutting down' && /EPIPE/.test(l.reason)), output.err);
  const last = logged.at(-1);
  assert.equal([last.msg, last.exitCode], ['stopped with exit code 1: stdout closed by the client (EPIPE)', 1], 'the last line agrees with the exit code');
});

S("e2e mcp :: in stdio mode the crash-loop line does not send the operator to `agent mcp restart` (no control bus there)", async () => {
  const { child, output, exited } = stdioService({ dies: { command: node, args: ['-e', 'process.exit(1)'], maxRestarts: 1, restartDelay: 100, restartOnExit: true } });
  try {
    const line = await poll(async () => output.err.split('\n').find((l) => /backend is in crash loop/.test(l)), 'the crash-loop line', 20_000);
    assert.match(JSON.parse(line).msg, /^backend is in crash loop: fix its configuration: a saved change to its entry restarts it$/);
  } finally {
    child.stdin.end();
    await exited;
  }
});

S.run();

// ---------------------------------------------------------------------------------------------
const R = suite('e2e mcp (remote backend reconnect)');

R('e2e mcp :: a remote backend that is down shows error, then connects when it comes up', async () => {
  const probe = await startHttpBackend();
  const port = Number(new URL(probe.url).port);
  await probe.close(); // nothing listens there now
  const service = await startService({ config: { mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp`, connectionTimeout: 2000 } } }, args: ['--health-info-level', 'basic', '--health-rate-limit', '0'] });
  let revived: HttpBackend | undefined;
  try {
    const down = await service.waitFor(async () => {
      const { body } = await service.get('/health');
      return body.servers?.details?.[0]?.status === 'error' && body.servers.details[0];
    }, 'remote in error');
    assert.match(down.lastError, /fetch failed|ECONNREFUSED|connect/i);
    await service.waitForLog((l) => l.msg === 'reconnecting to the remote backend');
    revived = await startHttpBackend(port);
    await service.waitFor(async () => (await service.get('/health')).body.servers?.details?.[0]?.status === 'connected', 'remote reconnected', 20_000);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`)));
    assert.equal((await client.callTool({ name: 'remote_agent_shout', arguments: { text: 'back' } })).content, [{ type: 'text', text: 'BACK' }]);
    await client.close();
  } finally {
    await service.stop();
    await revived?.close();
  }
});

R('e2e mcp :: a connected remote backend that goes away is in error at once (a transport error, decisions §3), then reconnects when it is back', async () => {
  let backend: HttpBackend | undefined = await startHttpBackend();
  const port = Number(new URL(backend.url).port);
  const service = await startService({ config: { mcpServers: { remote: { url: backend.url, connectionTimeout: 2000 } } }, args: ['--health-info-level', 'basic', '--health-rate-limit', '0'] });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  try {
    await service.waitFor(async () => (await service.get('/health/mcp/remote')).status === 200, 'remote connected');
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`)));
    await backend.close();
    backend = undefined;
    // A call is what notices (a ping would, within 30 s): it fails, and so does the backend.
    const failed = await client.callTool({ name: 'remote_agent_shout', arguments: { text: 'gone' } }).then(() => null, (e: Error) => e);
    assert.ok(failed, 'the call failed');
    const down = (await service.get('/health')).body.servers.details[0];
    assert.is(down.status, 'error');
    assert.is(down.healthy, false);
    assert.match(down.lastError, /the remote backend cannot be reached: .*ECONNREFUSED/);
    await service.waitForLog((l) => l.msg === 'reconnecting to the remote backend');
    backend = await startHttpBackend(port);
    await service.waitFor(async () => (await service.get('/health')).body.servers?.details?.[0]?.status === 'connected', 'remote reconnected', 20_000);
    assert.equal((await client.callTool({ name: 'remote_agent_shout', arguments: { text: 'back' } })).content, [{ type: 'text', text: 'BACK' }]);
  } finally {
    await client.close();
    await service.stop();
    await backend?.close();
  }
});

R("e2e mcp :: a remote backend's URL with user:password@ connects: they go as a Basic Authorization header, and the password is in no log", async () => {
  const password = 'Zq7hunter2Remote9x';
  const backend = await startHttpBackend(0, `Basic ${Buffer.from(`bob:${password}`).toString('base64')}`);
  const url = new URL(backend.url);
  const service = await startService({ config: { mcpServers: { guarded: { url: `http://bob:${password}@${url.host}${url.pathname}` } } }, args: ['--health-rate-limit', '0'] });
  try {
    await service.waitFor(async () => (await service.get('/health/mcp/guarded')).status === 200, 'guarded connected');
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`)));
    assert.equal((await client.callTool({ name: 'guarded_agent_shout', arguments: { text: 'in' } })).content, [{ type: 'text', text: 'IN' }]);
    await client.close();
    assert.not.ok(service.logs.some((l) => JSON.stringify(l).includes(password)), 'the password is in no log line');
  } finally {
    await service.stop();
    await backend.close();
  }
});

R.run();
