// The main thread's end of the byte pump: a real HTTP server forwards through a PumpClient, and
// the test plays the hub on the other port of a real MessageChannel.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { PumpClient } from '../../lib/main/pump-client.ts';
import { PUMP_WINDOW_BYTES, type PumpToHub, type PumpToMain } from '../../lib/shared/messages/pump.ts';
import { Messages } from '../../lib/shared/errors.ts';

const LIMIT = 64 * 1024;

/** A bare TCP connection to the test server, for requests fetch cannot make (a body in pieces, a client that leaves). */
async function rawConnection(url: string): Promise<net.Socket> {
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  return socket;
}

async function setup() {
  const { port1, port2 } = new MessageChannel();
  const client = new PumpClient(port1 as MessagePort, { maxBodyBytes: LIMIT });
  const server = http.createServer((req, res) => client.forward(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hub: PumpToHub[] = [];
  port2.on('message', (m: PumpToHub) => hub.push(m));
  const send = (m: PumpToMain, transfer: ArrayBuffer[] = []) => port2.postMessage(m, transfer);
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    port2.close();
  };
  return { client, url, hub, send, until, close };
}

test('pump client :: a request with a declared body of at most a window crosses whole, in one message; the answer is written as it comes', async () => {
  const p = await setup();
  try {
    const answer = fetch(`${p.url}/mcp?tags=a`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0"}' });
    await p.until(() => p.hub.some((m) => m.type === 'request'), 'the request');
    assert.is(p.hub.length, 1, 'one message: no body, no end');
    const request = p.hub[0] as Extract<PumpToHub, { type: 'request'; ended: true }>;
    assert.equal([request.method, request.url, request.remoteAddress, request.ended], ['POST', '/mcp?tags=a', '127.0.0.1', true]);
    assert.ok(request.headers.includes('application/json'), 'raw headers, unparsed');
    assert.is(Buffer.from(request.body!).toString(), '{"jsonrpc":"2.0"}');
    p.send({ type: 'answer', id: request.id, head: { status: 200, headers: [['content-type', 'text/plain'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']] }, chunks: [], end: false });
    p.send({ type: 'answer', id: request.id, chunks: [new TextEncoder().encode('hel')], end: false });
    p.send({ type: 'answer', id: request.id, chunks: [new TextEncoder().encode('l'), new TextEncoder().encode('o')], end: true });
    const response = await answer;
    assert.is(response.status, 200);
    assert.equal(response.headers.getSetCookie(), ['a=1', 'b=2'], 'repeated headers stay separate');
    assert.is(await response.text(), 'hello');
    await p.until(() => p.hub.some((m) => m.type === 'credit'), 'the credit for the bytes written before the end');
    assert.equal(p.hub.filter((m) => m.type === 'credit').map((m) => (m as { bytes: number }).bytes), [3], 'the final part is not credited');
    assert.is(p.client.active, 0);
  } finally {
    await p.close();
  }
});

test('pump client :: a declared body that arrives in several pieces still crosses whole, in one message', async () => {
  const p = await setup();
  try {
    const socket = await rawConnection(p.url);
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n12345');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(p.hub, [], 'nothing crosses before the body is complete');
    socket.write('67890');
    await p.until(() => p.hub.length === 1, 'the request');
    const request = p.hub[0] as Extract<PumpToHub, { type: 'request'; ended: true }>;
    assert.is(request.ended, true);
    assert.is(Buffer.from(request.body!).toString(), '1234567890');
    socket.destroy();
  } finally {
    await p.close();
  }
});

test('pump client :: a body without a declared length streams after its head, then its end', async () => {
  const p = await setup();
  try {
    const pieces = [new TextEncoder().encode('{"a":'), new TextEncoder().encode('1}')];
    const answer = fetch(`${p.url}/mcp`, {
      method: 'POST',
      body: new ReadableStream({ pull: (c) => (pieces.length ? c.enqueue(pieces.shift()!) : c.close()) }),
      duplex: 'half',
    } as RequestInit);
    await p.until(() => p.hub.some((m) => m.type === 'end'), 'the request end');
    const request = p.hub[0] as Extract<PumpToHub, { type: 'request' }>;
    assert.is(request.ended, false);
    const body = Buffer.concat(p.hub.filter((m) => m.type === 'body').map((m) => (m as { chunk: Uint8Array }).chunk)).toString();
    assert.is(body, '{"a":1}');
    p.send({ type: 'answer', id: request.id, head: { status: 202, headers: [] }, chunks: [], end: true });
    assert.is((await answer).status, 202);
  } finally {
    await p.close();
  }
});

test('pump client :: a client that goes away while its whole body is read never reaches the hub', async () => {
  const p = await setup();
  try {
    const socket = await rawConnection(p.url);
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"partial":');
    await p.until(() => p.client.active === 1, 'the exchange');
    socket.destroy();
    await p.until(() => p.client.active === 0, 'the exchange dropped');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(p.hub, [], 'no request and no abort');
  } finally {
    await p.close();
  }
});

test('pump client :: a body over the limit is 413 with the catalogue body, declared or streamed', async () => {
  const p = await setup();
  try {
    const tooLarge = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body too large: the limit is ${LIMIT} bytes (--max-message-bytes)","data":{"code":"message_too_large"}},"id":null}`;
    const declared = await fetch(`${p.url}/mcp`, { method: 'POST', body: 'x'.repeat(LIMIT + 1) });
    assert.is(declared.status, 413);
    assert.is(await declared.text(), tooLarge);
    assert.not.ok(p.hub.some((m) => m.type === 'request'), 'a declared length over the limit never reaches the hub');
    const chunks = [new Uint8Array(LIMIT / 2), new Uint8Array(LIMIT / 2), new Uint8Array(16)];
    const streamed = await fetch(`${p.url}/mcp`, {
      method: 'POST',
      body: new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) }),
      duplex: 'half',
    } as RequestInit);
    assert.is(streamed.status, 413);
    assert.is(await streamed.text(), tooLarge);
    assert.ok(p.hub.some((m) => m.type === 'abort'), 'the hub is told to stop');
  } finally {
    await p.close();
  }
});

test('pump client :: a client that goes away aborts its exchange in the hub', async () => {
  const p = await setup();
  try {
    const abort = new AbortController();
    const answer = fetch(`${p.url}/sse`, { signal: abort.signal }).catch(() => 'aborted');
    await p.until(() => p.hub.some((m) => m.type === 'request'), 'the request');
    const { id } = p.hub.find((m) => m.type === 'request') as { id: number };
    p.send({ type: 'answer', id, head: { status: 200, headers: [['content-type', 'text/event-stream']] }, chunks: [], end: false });
    const response = await answer;
    assert.is((response as Response).status, 200, 'the head is flushed at once for a stream');
    abort.abort();
    await p.until(() => p.hub.some((m) => m.type === 'abort' && m.id === id), 'the abort');
    assert.is(p.client.active, 0);
  } finally {
    await p.close();
  }
});

test('pump client :: the client socket pauses a window ahead of the hub and resumes with credit', async () => {
  const { port1, port2 } = new MessageChannel();
  const client = new PumpClient(port1 as MessagePort, { maxBodyBytes: PUMP_WINDOW_BYTES * 4 });
  const server = http.createServer((req, res) => client.forward(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hub: PumpToHub[] = [];
  port2.on('message', (m: PumpToHub) => hub.push(m));
  const received = () => hub.filter((m) => m.type === 'body').reduce((n, m) => n + (m as { chunk: Uint8Array }).chunk.byteLength, 0);
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    void fetch(url, { method: 'POST', body: new Uint8Array(PUMP_WINDOW_BYTES * 3) }).catch(() => undefined);
    const settle = async () => {
      let last = -1;
      while (received() !== last) {
        last = received();
        await new Promise((r) => setTimeout(r, 150));
      }
      return last;
    };
    const deadline = Date.now() + 5000;
    while (received() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const first = await settle();
    assert.ok(first >= PUMP_WINDOW_BYTES && first < PUMP_WINDOW_BYTES * 2, `paused after a window (got ${first})`);
    const { id } = hub.find((m) => m.type === 'request') as { id: number };
    port2.postMessage({ type: 'credit', id, bytes: first } satisfies PumpToMain);
    const second = await settle();
    assert.ok(second > first, 'credit resumes the socket');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    port2.close();
  }
});

test('pump client :: when the hub is gone a request not answered yet gets 503; a streamed answer to requests ends with their errors; any other under way is cut', async () => {
  const p = await setup();
  try {
    const waiting = fetch(`${p.url}/mcp`, { method: 'POST', body: '{}' });
    const streaming = fetch(`${p.url}/sse`);
    const calling = fetch(`${p.url}/mcp?call`, { method: 'POST', body: '{}' });
    await p.until(() => p.hub.filter((m) => m.type === 'request').length === 3, 'the requests');
    const requests = p.hub.filter((m) => m.type === 'request') as { id: number; url: string }[];
    const sse = requests.find((m) => m.url === '/sse')!;
    const call = requests.find((m) => m.url === '/mcp?call')!;
    p.send({ type: 'answer', id: sse.id, head: { status: 200, headers: [['content-type', 'text/event-stream']] }, chunks: [], end: false });
    const failure = '\n\nevent: message\ndata: {"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"gone"}}\n\n';
    p.send({ type: 'answer', id: call.id, head: { status: 200, headers: [['content-type', 'text/event-stream']], failure }, chunks: [new TextEncoder().encode('event: message\ndata: {"progress":1}\n\n')], end: false });
    const stream = await streaming;
    const called = await calling;
    await p.until(() => p.hub.some((m) => m.type === 'credit' && m.id === call.id), 'the progress written');
    assert.is(p.client.failAll(), 3);
    assert.is(await called.text(), `event: message\ndata: {"progress":1}\n\n${failure}`, 'the call\'s stream ends with its error');
    const refused = await waiting;
    assert.is(refused.status, 503);
    assert.is(await refused.text(), JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: Messages.hubFailed, data: { code: 'hub_failed' } }, id: null }));
    const cut = await stream.text().then(() => 'ended', () => 'cut');
    assert.is(cut, 'cut');
  } finally {
    await p.close();
  }
});

test('pump client :: a stream whose owed requests change (legacy SSE) ends with the errors the hub last sent', async () => {
  const p = await setup();
  try {
    const streaming = fetch(`${p.url}/sse`);
    await p.until(() => p.hub.some((m) => m.type === 'request'), 'the request');
    const { id } = p.hub.find((m) => m.type === 'request') as { id: number };
    p.send({ type: 'answer', id, head: { status: 200, headers: [['content-type', 'text/event-stream']] }, chunks: [], end: false });
    const stream = await streaming;
    p.send({ type: 'failure', id, failure: 'first' });
    p.send({ type: 'failure', id, failure: null });
    p.send({ type: 'failure', id, failure: '\n\nevent: message\ndata: {"id":2}\n\n' });
    p.send({ type: 'answer', id, chunks: [new TextEncoder().encode('event: endpoint\ndata: /messages\n\n')], end: false });
    await p.until(() => p.hub.some((m) => m.type === 'credit'), 'the chunk written');
    assert.is(p.client.failAll(), 1);
    assert.is(await stream.text(), 'event: endpoint\ndata: /messages\n\n\n\nevent: message\ndata: {"id":2}\n\n');
  } finally {
    await p.close();
  }
});

test('pump client :: an unknown message from the hub is logged, not thrown on the main thread', async () => {
  const { port1, port2 } = new MessageChannel();
  const logged: { fields: Record<string, unknown>; msg: string }[] = [];
  const client = new PumpClient(port1 as MessagePort, { maxBodyBytes: LIMIT }, (fields, msg) => void logged.push({ fields, msg }));
  port2.postMessage({ type: 'from-a-newer-version' });
  for (let i = 0; i < 50 && logged.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(logged, [{ fields: { code: 'protocol_error', message: { type: 'from-a-newer-version' } }, msg: "protocol error: unknown message from an MCP worker's pump" }]);
  assert.ok(client, 'the client lives on');
  port1.close();
});

test.run();
