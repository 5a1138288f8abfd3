import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectTimeoutMessage, type ConnectStep } from '../../lib/backend/connect-watch.ts';
import type { RemoteSpec } from '../../lib/config/types.ts';
import { backendFixture, bounded, harness, stdioSpec } from './helpers/runner-harness.ts';

const remoteSpec = (type: 'sse' | 'http', url: string, overrides: Partial<RemoteSpec> = {}): RemoteSpec => ({
  name: 'remote',
  type,
  tags: [],
  url,
  headers: {},
  connectionTimeout: 1_000,
  requestTimeout: 10_000,
  protocolVersion: 'auto',
  disabledTools: [],
  toolDescriptionOverrides: {},
  ...overrides,
});

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function shut(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

test('connect watch :: each step has its own message naming connectionTimeout', () => {
  const cases: [ConnectStep, string, string, string?][] = [
    ['transport', 'sse', 'the SSE stream sent no endpoint event after 900 ms (connectionTimeout)'],
    ['transport', 'http', 'opening the http connection timed out after 900 ms (connectionTimeout)'],
    ['probe', 'stdio', 'the protocol version probe (server/discover) got no answer after 900 ms (connectionTimeout); a 2025 server that ignores unknown requests needs "protocolVersion": "legacy"'],
    ['probe', 'http', 'the protocol version probe (server/discover) got no answer after 900 ms (connectionTimeout): the backend does not seem to speak 2026-07-28; for a 2025 server set "protocolVersion" to "auto" or "legacy"', '2026-07-28'],
    ['initialize', 'stdio', 'MCP initialize timed out after 900 ms (connectionTimeout)'],
    ['initialized', 'http', 'the backend did not accept notifications/initialized after 900 ms (connectionTimeout)'],
    ['lists', 'stdio', "reading the backend's tools, resources and prompts timed out after 900 ms (connectionTimeout)"],
  ];
  for (const [step, type, message, mode] of cases) assert.is(connectTimeoutMessage(step, 900, type, mode), message, `${step} ${mode ?? ''}`);
});

// An SSE server that keeps its stream open with comments and never names an endpoint.
async function silentSse() {
  let opened!: () => void;
  let closed!: () => void;
  const streams = { opened: new Promise<void>((resolve) => (opened = resolve)), closed: new Promise<void>((resolve) => (closed = resolve)) };
  const keepAlives = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': connected\n\n');
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 100);
    keepAlives.add(keepAlive);
    opened();
    req.on('close', () => {
      clearInterval(keepAlive);
      closed();
    });
  });
  const url = `${await listen(server)}/sse`;
  return {
    url,
    streams,
    async close() {
      for (const timer of keepAlives) clearInterval(timer);
      await shut(server);
    },
  };
}

test('connect watch :: an SSE server that never sends its endpoint event fails the start after connectionTimeout, and the stream is closed', async () => {
  const sse = await silentSse();
  const h = harness(remoteSpec('sse', sse.url));
  try {
    await bounded(h.runner.start(), 'the start', 10_000);
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.is(failed.error.message, 'the SSE stream sent no endpoint event after 1000 ms (connectionTimeout)');
    await bounded(sse.streams.closed, 'the SSE stream closed by the client', 5_000);
  } finally {
    await h.close();
    await sse.close();
  }
});

test('connect watch :: a stop while the SSE stream waits for its endpoint closes the stream at once, not after connectionTimeout', async () => {
  const sse = await silentSse();
  const h = harness(remoteSpec('sse', sse.url, { connectionTimeout: 30_000 }));
  try {
    const started = h.runner.start();
    await bounded(sse.streams.opened, 'the SSE stream opened', 5_000);
    await bounded(h.runner.stop(200), 'the stop', 5_000);
    await bounded(sse.streams.closed, 'the SSE stream closed after the stop', 2_000);
    await bounded(started, 'the superseded start', 2_000);
    assert.equal(h.events.map((e) => e.type), ['connecting', 'stopped']);
  } finally {
    await h.close();
    await sse.close();
  }
});

test('connect watch :: a stop while an HTTP backend has not answered the era probe ends the request at once', async () => {
  let opened!: () => void;
  let closed!: () => void;
  const request = { opened: new Promise<void>((resolve) => (opened = resolve)), closed: new Promise<void>((resolve) => (closed = resolve)) };
  // Takes the probe's POST and never answers it.
  const server = http.createServer((req) => {
    opened();
    req.on('close', () => closed());
  });
  const base = await listen(server);
  const h = harness(remoteSpec('http', `${base}/mcp`, { connectionTimeout: 30_000 }));
  try {
    const started = h.runner.start();
    await bounded(request.opened, 'the probe sent', 5_000);
    await bounded(h.runner.stop(200), 'the stop', 5_000);
    await bounded(request.closed, 'the probe request ended after the stop', 2_000);
    await bounded(started, 'the superseded start', 2_000);
    assert.equal(h.events.map((e) => e.type), ['connecting', 'stopped']);
  } finally {
    await h.close();
    await shut(server);
  }
});

test('connect watch :: an HTTP server that answers initialize but never the initialized notification fails the start after connectionTimeout', async () => {
  let notified = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) {
        notified++;
        return; // never answered
      }
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'stalls-on-initialized', version: '1.0.0' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  const base = await listen(server);
  const h = harness(remoteSpec('http', `${base}/mcp`, { protocolVersion: 'legacy' }));
  try {
    await bounded(h.runner.start(), 'the start', 10_000);
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.is(failed.error.message, 'the backend did not accept notifications/initialized after 1000 ms (connectionTimeout)');
    assert.ok(notified >= 1, 'the notification reached the server');
  } finally {
    await h.close();
    await shut(server);
  }
});

test('connect watch :: a stdio backend that ignores server/discover: the probe is named with the fix, and "legacy" connects it', async () => {
  const script = backendFixture('ignores-server-discover.mjs');
  const auto = harness(stdioSpec('ignores', script, { connectionTimeout: 1_500 }));
  try {
    await bounded(auto.runner.start(), 'the auto start');
    const failed = await auto.next('failed');
    assert.ok(failed.type === 'failed');
    assert.is(failed.error.message, 'the protocol version probe (server/discover) got no answer after 1500 ms (connectionTimeout); a 2025 server that ignores unknown requests needs "protocolVersion": "legacy"');
  } finally {
    await auto.close();
  }
  // Generous: under a loaded machine node's own start must fit.
  const legacy = harness(stdioSpec('ignores', script, { connectionTimeout: 5_000, protocolVersion: 'legacy' }));
  try {
    await bounded(legacy.runner.start(), 'the legacy start');
    const connected = await legacy.next('connected');
    assert.ok(connected.type === 'connected' && connected.inventory.tools.map((t) => t.name).join() === 'pid', JSON.stringify(connected));
  } finally {
    await legacy.close();
  }
});

test('connect watch :: pinned to 2026-07-28, a backend that ignores server/discover is told it does not speak it', async () => {
  const h = harness(stdioSpec('ignores', backendFixture('ignores-server-discover.mjs'), { connectionTimeout: 1_500, protocolVersion: '2026-07-28' }));
  try {
    await bounded(h.runner.start(), 'the pinned start');
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.match(failed.error.message, /does not seem to speak 2026-07-28; for a 2025 server set "protocolVersion" to "auto" or "legacy"$/);
  } finally {
    await h.close();
  }
});

test.run();
