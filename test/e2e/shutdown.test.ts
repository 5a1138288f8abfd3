// SIGTERM while HTTP clients wait for calls: each call gets its answer, the catalogue's
// service_stopping error, before the sessions close (decisions §2: stop accepting, tell clients,
// stop every backend).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backendFixture, startService } from '../helpers/service.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const STOPPING = { code: -32603, message: 'The service is shutting down: the request was not completed', data: { code: 'service_stopping', backend: 'stuck' } };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'shutdown', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

// The JSON-RPC messages of an answer, whether it came as JSON or as an event stream.
function messagesOf(contentType: string | null, text: string): any[] {
  if (contentType?.startsWith('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.length > 5)
    .map((line) => JSON.parse(line.slice(5)));
}

// A legacy SSE session: the stream's events as they come, and a POST to its endpoint.
async function openSse(base: string) {
  const response = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const events: any[] = [];
  let endpoint = '';
  const done = (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += read.value;
      const blocks = text.split('\n\n');
      text = blocks.pop()!;
      for (const block of blocks) {
        const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '';
        if (/^event: endpoint$/m.test(block)) endpoint = data;
        else if (data) events.push(JSON.parse(data));
      }
    }
  })();
  while (!endpoint) await new Promise((r) => setTimeout(r, 20));
  const post = (message: object) => fetch(new URL(endpoint, base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) }).then((r) => r.text());
  return { events, done, post };
}

test('shutdown :: calls in flight on a 2025 session, a legacy SSE session and as 2026-07-28 requests get service_stopping before their streams close', async () => {
  const svc = await startService({ config: { mcpServers: { stuck: { command: process.execPath, args: [backendFixture('hangs-on-a-call.mjs')] } } } });
  try {
    await svc.waitFor(async () => (await svc.get('/health')).body.servers.healthy === 1 || undefined, 'the backend healthy');
    const init = await fetch(`${svc.base}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'shutdown', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const sessionHeaders = { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await (await fetch(`${svc.base}/mcp`, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    const call = (headers: Record<string, string>, id: number, meta?: object) =>
      fetch(`${svc.base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'stuck_agent_hang', arguments: {}, ...(meta ? { _meta: meta } : {}) } }) }).then(async (r) => ({
        status: r.status,
        messages: messagesOf(r.headers.get('content-type'), await r.text()),
      }));
    const sse = await openSse(svc.base);
    await sse.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'shutdown', version: '1' } } });
    await sse.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await sse.post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'stuck_agent_hang', arguments: {} } });
    const legacy = call(sessionHeaders, 2);
    const modern = call({ ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'stuck_agent_hang' }, 3, MODERN_META);
    await new Promise((r) => setTimeout(r, 500)); // the three calls reach the backend (which never answers them)
    svc.child.kill('SIGTERM');

    const [a, b] = await Promise.all([legacy, modern, sse.done]);
    assert.is(a.status, 200);
    assert.equal(a.messages, [{ jsonrpc: '2.0', id: 2, error: STOPPING }], '2025 session');
    assert.is(b.status, 200);
    assert.equal(b.messages.map((m) => m.error), [STOPPING], '2026-07-28 request');
    assert.equal(b.messages[0].id, 3);
    assert.equal(sse.events.at(-1), { jsonrpc: '2.0', id: 4, error: STOPPING }, 'legacy SSE session: the last event before its stream ended');
  } finally {
    await svc.stop();
  }
});

test.run();
