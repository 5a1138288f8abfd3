// The hub's end of the byte pump, driven over a real MessageChannel by a test playing the main
// thread: requests in as heads and body chunks, answers out as heads, chunks and credits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { HubApp } from '../../lib/hub/app.ts';
import { servePump } from '../../lib/hub/pump-server.ts';
import { failureFrame, withFailureFrame } from '../../lib/hub/failure-frame.ts';
import { PUMP_WINDOW_BYTES, type PumpToHub, type PumpToMain } from '../../lib/shared/messages/pump.ts';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

function setup(app: HubApp) {
  const { port1, port2 } = new MessageChannel();
  const errors: unknown[] = [];
  const server = servePump(port2 as MessagePort, app, (error) => errors.push(error));
  const received: PumpToMain[] = [];
  let waiter: (() => void) | null = null;
  port1.on('message', (m: PumpToMain) => {
    received.push(m);
    waiter?.();
  });
  const send = (m: PumpToHub) => port1.postMessage(m);
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        waiter = r;
        setTimeout(r, 50);
      });
    }
  };
  const body = (id: number) => Buffer.concat(received.filter((m): m is Extract<PumpToMain, { type: 'chunk' }> => m.type === 'chunk' && m.id === id).map((m) => m.chunk)).toString();
  return { server, send, received, until, body, errors, close: () => port1.close() };
}

const head = (id: number, method: string, url: string, headers: string[] = ['Host', 'example.test:3050']): PumpToHub => ({ type: 'request', id, method, url, headers, remoteAddress: '127.0.0.1' });

test('pump server :: a request streams in, the answer streams out as a head, chunks and an end', async () => {
  const seen: { url: string; method: string; body: string; type: string | null }[] = [];
  const p = setup(async (request) => {
    seen.push({ url: request.url, method: request.method, body: await request.text(), type: request.headers.get('content-type') });
    return new Response('pong', { status: 201, headers: { 'X-Answer': 'yes' } });
  });
  p.send(head(7, 'POST', '/mcp?x=1', ['Host', 'example.test:3050', 'Content-Type', 'application/json']));
  p.send({ type: 'body', id: 7, chunk: new TextEncoder().encode('{"a":') });
  p.send({ type: 'body', id: 7, chunk: new TextEncoder().encode('1}') });
  p.send({ type: 'end', id: 7 });
  await p.until(() => p.received.some((m) => m.type === 'end'), 'the end');
  assert.equal(seen, [{ url: 'http://example.test:3050/mcp?x=1', method: 'POST', body: '{"a":1}', type: 'application/json' }]);
  const answerHead = p.received.find((m) => m.type === 'head') as Extract<PumpToMain, { type: 'head' }>;
  assert.is(answerHead.status, 201);
  assert.ok(answerHead.headers.some(([n, v]) => n === 'x-answer' && v === 'yes'));
  assert.is(p.body(7), 'pong');
  const credits = p.received.filter((m) => m.type === 'credit').reduce((n, m) => n + (m as { bytes: number }).bytes, 0);
  assert.is(credits, 7, 'every body byte the app read is credited back');
  assert.is(p.server.active, 0);
  p.close();
});

test('pump server :: a streamed answer to a request carries its failure frame in the head; other answers none', async () => {
  let marked: Response | null = null;
  const p = setup(async (request) => {
    if (request.url.endsWith('/plain')) return new Response('x');
    marked = withFailureFrame(new Response('event: message\ndata: {}\n\n', { headers: { 'content-type': 'text/event-stream' } }), { jsonrpc: '2.0', id: 9, method: 'tools/call' });
    return marked;
  });
  p.send(head(1, 'GET', '/plain'));
  p.send(head(2, 'GET', '/stream'));
  await p.until(() => p.received.filter((m) => m.type === 'end').length === 2, 'both answers');
  const heads = p.received.filter((m) => m.type === 'head') as Extract<PumpToMain, { type: 'head' }>[];
  assert.is(heads.find((h) => h.id === 1)!.failure, undefined);
  assert.is(heads.find((h) => h.id === 2)!.failure, failureFrame(marked!));
  assert.match(heads.find((h) => h.id === 2)!.failure!, /"id":9,"error":\{"code":-32603/);
  p.close();
});

test('pump server :: an app that throws answers 500 with a JSON-RPC body, and the error is reported', async () => {
  const p = setup(async () => {
    throw new Error('boom');
  });
  p.send(head(1, 'GET', '/api/v1/servers'));
  await p.until(() => p.received.some((m) => m.type === 'end'), 'the end');
  const answerHead = p.received.find((m) => m.type === 'head') as Extract<PumpToMain, { type: 'head' }>;
  assert.is(answerHead.status, 500);
  assert.is(p.body(1), '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: boom"},"id":null}');
  assert.is((p.errors[0] as Error).message, 'boom');
  p.close();
});

test('pump server :: the answer stops a window ahead of what the main thread has written, and goes on with credit', async () => {
  const piece = new Uint8Array(256 * 1024);
  let produced = 0;
  const p = setup(async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (produced >= PUMP_WINDOW_BYTES * 3) return controller.close();
          produced += piece.byteLength;
          controller.enqueue(piece.slice());
        },
      }),
    ),
  );
  p.send(head(1, 'GET', '/big'));
  const sent = () => p.received.filter((m) => m.type === 'chunk').reduce((n, m) => n + (m as { chunk: Uint8Array }).chunk.byteLength, 0);
  await p.until(() => sent() >= PUMP_WINDOW_BYTES, 'a window of chunks');
  await tick(100);
  assert.is(sent(), PUMP_WINDOW_BYTES, 'no more than a window without credit');
  p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES });
  await p.until(() => sent() >= PUMP_WINDOW_BYTES * 2, 'the next window');
  await tick(100);
  assert.is(sent(), PUMP_WINDOW_BYTES * 2);
  p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES * 2 });
  await p.until(() => p.received.some((m) => m.type === 'end'), 'the end');
  assert.is(sent(), PUMP_WINDOW_BYTES * 3);
  p.close();
});

test('pump server :: an abort from the main thread aborts the request and cancels a streaming answer', async () => {
  let aborted = false;
  let cancelled = false;
  const p = setup(async (request) => {
    request.signal.addEventListener('abort', () => (aborted = true));
    return new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('event: hello\n\n'));
        },
        cancel() {
          cancelled = true;
        },
      }),
      { headers: { 'Content-Type': 'text/event-stream' } },
    );
  });
  p.send(head(3, 'GET', '/sse'));
  await p.until(() => p.received.some((m) => m.type === 'chunk'), 'the first event');
  assert.is(p.server.active, 1);
  p.send({ type: 'abort', id: 3 });
  await p.until(() => aborted && cancelled, 'abort and cancel');
  assert.is(p.server.active, 0);
  assert.not.ok(p.received.some((m) => m.type === 'end' || m.type === 'reset'), 'nothing more is sent for an aborted exchange');
  p.close();
});

test('pump server :: an answer that breaks after its head is reset', async () => {
  const p = setup(async () =>
    new Response(
      new ReadableStream({
        pull(controller) {
          controller.error(new Error('backend went away'));
        },
      }),
    ),
  );
  p.send(head(4, 'GET', '/stream'));
  await p.until(() => p.received.some((m) => m.type === 'reset'), 'the reset');
  assert.equal(p.received.find((m) => m.type === 'reset'), { type: 'reset', id: 4, reason: 'backend went away' });
  p.close();
});

test('pump server :: stdio mode: stdin bytes reach the hub, stdout waits for credit past a window', async () => {
  const p = setup(async () => new Response(null));
  const stdin: string[] = [];
  let ended = false;
  p.server.onStdin = (chunk) => stdin.push(Buffer.from(chunk).toString());
  p.server.onStdinEnd = () => (ended = true);
  p.send({ type: 'stdin', chunk: new TextEncoder().encode('{"jsonrpc":"2.0"}\n') });
  p.send({ type: 'stdinEnd' });
  await p.until(() => ended, 'stdin end');
  assert.equal(stdin, ['{"jsonrpc":"2.0"}\n']);
  p.server.creditStdin(18);
  let written = false;
  const write = p.server.writeStdout(new Uint8Array(PUMP_WINDOW_BYTES)).then(() => (written = true));
  await p.until(() => p.received.some((m) => m.type === 'stdout'), 'stdout bytes');
  await tick(50);
  assert.not.ok(written, 'a full window waits for credit');
  p.send({ type: 'stdoutCredit', bytes: PUMP_WINDOW_BYTES });
  await write;
  assert.ok(p.received.some((m) => m.type === 'stdinCredit' && m.bytes === 18));
  p.close();
});

test.run();
