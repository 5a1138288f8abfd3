// End to end: the service's bounds (issue 12). One limit for one JSON-RPC message in every
// direction (--max-message-bytes), a cap on sessions (--max-sessions), a bounded view cache, SSE
// back-pressure, and the memory they leave after thousands of attempts (last: it fills the sessions).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rssMB } from '../../benchmarks/lib/procs.ts';
import { FIXTURE_SERVER, poll, ROOT, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
const LIMIT = 256 * 1024;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } });

const H = suite('e2e limits (HTTP)');
let svc: Service;

H.before(async () => {
  svc = await startService({
    config: { mcpServers: { fixture: { command: node, args: [FIXTURE_SERVER], tags: ['t'] } } },
    args: ['--health-rate-limit', '0', '--max-message-bytes', String(LIMIT), '--max-sessions', '3'],
  });
  await svc.waitFor(async () => (await svc.get('/health')).body.status === 'healthy', 'healthy', 20_000);
});
H.after(async () => {
  await svc.stop();
});

const tooLarge = { jsonrpc: '2.0', error: { code: -32600, message: `Request body too large: the limit is ${LIMIT} bytes (--max-message-bytes)`, data: { code: 'message_too_large' } }, id: null };

H('limits :: an MCP request body over --max-message-bytes gets 413 naming the limit, declared or streamed', async () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'x'.repeat(LIMIT) } } });
  const declared = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body });
  assert.is(declared.status, 413);
  assert.equal(await declared.json(), tooLarge);
  // No Content-Length: the body is counted as it streams.
  const chunks = [body.slice(0, 1000), body.slice(1000)];
  const streamed = await fetch(`${svc.base}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(new TextEncoder().encode(chunks.shift()!)) : c.close()) }),
    duplex: 'half',
  } as RequestInit);
  assert.is(streamed.status, 413);
  assert.equal(await streamed.json(), tooLarge);
  const messages = await fetch(`${svc.base}/messages?sessionId=h0-x`, { method: 'POST', headers: MCP_HEADERS, body });
  assert.is(messages.status, 413, '/messages like /mcp');
  assert.is((await svc.get('/health/live')).status, 200);
});

H('limits :: --max-sessions caps 2025 and SSE sessions together: a 503 JSON-RPC error and one log line', async () => {
  const clients: { client: V1Client; transport: V1HttpTransport }[] = [];
  for (let i = 0; i < 3; i++) {
    const client = new V1Client({ name: `c${i}`, version: '1.0.0' });
    const transport = new V1HttpTransport(new URL(`${svc.base}/mcp`));
    await client.connect(transport);
    clients.push({ client, transport });
  }
  const refused = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: initialize(9) });
  assert.is(refused.status, 503);
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /Too many sessions: this service keeps at most 3 \(--max-sessions\)/);
  const sse = await fetch(`${svc.base}/sse`);
  assert.is(sse.status, 503, 'an SSE session counts against the same cap');
  await sse.body?.cancel();
  assert.is(svc.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('session limit reached')).length, 1, 'one log line, not one per refusal');
  // A session that ends (DELETE) frees its place.
  const leaving = clients.pop()!;
  await leaving.transport.terminateSession();
  await leaving.client.close();
  await poll(async () => {
    const again = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: initialize(10) });
    await again.body?.cancel();
    return again.status === 200;
  }, 'a freed place taken again');
  for (const { client, transport } of clients) {
    await transport.terminateSession();
    await client.close();
  }
});

H('limits :: an SSE client that stops reading has its session closed past 8 MiB, with a log line', async () => {
  const port = svc.port;
  // A raw client that reads the endpoint event and then nothing more.
  const socket = net.connect(port, '127.0.0.1');
  socket.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (/^HTTP\/1\.1 (?!200)/.test(text)) reject(new Error(`GET /sse answered ${text.split('\r\n')[0]}`));
      const m = /data: (\/messages\?sessionId=[^\s]+)/.exec(text);
      if (m) {
        socket.off('data', onData);
        socket.pause();
        resolve(m[1]!);
      }
    };
    socket.on('data', onData);
  });
  const post = (id: number) =>
    fetch(`${svc.base}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'y'.repeat(128 * 1024) } } }),
    }).then((r) => r.status);
  await post(0).then(() => undefined);
  for (let i = 1; i < 400 && !svc.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('SSE session closed')); i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => post(i + j)));
  }
  await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('SSE session closed: its client fell too far behind'), 15_000);
  await poll(async () => (await post(999)) === 404, 'the closed session refuses messages');
  socket.destroy();
  assert.is((await svc.get('/health/live')).status, 200);
});

// Measured: the heap grows by about 120 MB under this load and stays there (40,000 requests
// plateau at the same level): a bound, not a leak.
H('limits :: 10,000 distinct tag filters and 2,000 session attempts leave the service within 160 MB of where it was, and more of them add nothing', async () => {
  const pid = svc.child.pid!;
  const before = rssMB(pid);
  const modernList = (i: number) =>
    fetch(`${svc.base}/mcp?tag-filter=${encodeURIComponent(`t or tag${i}`)}`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    }).then((r) => r.arrayBuffer());
  for (let i = 0; i < 10_000; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => modernList(i + j)));
  for (let i = 0; i < 2_000; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => fetch(`${svc.base}/mcp?tags=t${i + j}`, { method: 'POST', headers: MCP_HEADERS, body: initialize(j) }).then((r) => r.arrayBuffer())));
  }
  const after = rssMB(pid);
  assert.ok(after - before < 160, `RSS grew ${Math.round(after - before)} MB (${Math.round(before)} → ${Math.round(after)} MB)`);
  for (let i = 10_000; i < 15_000; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => modernList(i + j)));
  const more = rssMB(pid);
  assert.ok(more - after < 40, `5,000 more distinct filters grew RSS by ${Math.round(more - after)} MB (${Math.round(after)} → ${Math.round(more)} MB)`);
  assert.is((await svc.get('/health/live')).status, 200);
});

H.run();

// ---------------------------------------------------------------------------------------------
const S = suite('e2e limits (stdio)');

S('limits :: stdio: an oversized line is answered with the limit, a malformed one with -32700, reading goes on, EOF ends', async () => {
  const configFile = path.join(tempDir(), 'mcp.json');
  writeConfig(configFile, { mcpServers: { fixture: { command: node, args: [FIXTURE_SERVER] } } });
  const child = spawn(node, ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', configFile, '--max-message-bytes', String(LIMIT)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const answers: Record<string, unknown>[] = [];
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    let nl: number;
    while ((nl = out.indexOf('\n')) !== -1) {
      answers.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // 2 MiB in one line, far over the limit, written at once: the service keeps reading.
  const huge = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'fixture_agent_echo', arguments: { text: 'z'.repeat(2 * 1024 * 1024) } } });
  await new Promise<void>((resolve) => child.stdin.write(`${huge}\n`, () => resolve()));
  child.stdin.write('this is not json\n');
  child.stdin.write(`${initialize(8)}\n`);
  await poll(async () => answers.length >= 3, 'three answers', 20_000);
  // Each names its catalogue code, as over HTTP (found by an outside check).
  assert.equal(answers[0], { jsonrpc: '2.0', id: 7, error: { code: -32600, message: `Invalid Request: a message of ${huge.length} bytes is over the limit of ${LIMIT} bytes (--max-message-bytes)`, data: { code: 'message_too_large' } } });
  assert.equal(answers[1], { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON', data: { code: 'bad_request' } } });
  assert.is((answers[2] as { id: number; result: { serverInfo: { name: string } } }).result.serverInfo.name, 'agent');
  child.stdin.end();
  assert.is(await exited, 0, 'EOF still shuts the service down');
});

S.run();
