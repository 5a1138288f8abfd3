// The hub's end of the byte pump, driven over a real MessageChannel by a test playing the main
// thread: requests in as heads and body chunks, answers out as heads, chunks and credits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { HubApp } from '../../lib/hub/app.ts';
import { markPaced } from '../../lib/hub/paced-body.ts';
import { HEAD_HOLD_MS, type PumpOptions, servePump } from '../../lib/hub/pump-server.ts';
import { bodyText, wholeBodyOf } from '../../lib/hub/whole-body.ts';
import { failureFrame, withFailureFrame } from '../../lib/hub/failure-frame.ts';
import { onAnswerEnd } from '../../lib/hub/answer-end.ts';
import { PUMP_WINDOW_BYTES, type PumpToHub, type PumpToMain } from '../../lib/shared/messages/pump.ts';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

function setup(app: HubApp, options: PumpOptions = {}) {
  const { port1, port2 } = new MessageChannel();
  const errors: unknown[] = [];
  const server = servePump(port2 as MessagePort, app, (error) => errors.push(error), options);
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
  const answers = (id?: number) => received.filter((m): m is Answer => m.type === 'answer' && (id === undefined || m.id === id));
  const body = (id: number) => Buffer.concat(answers(id).flatMap((m) => m.chunks)).toString();
  const sent = () => answers().reduce((n, m) => n + m.chunks.reduce((k, c) => k + c.byteLength, 0), 0);
  const ended = (id?: number) => answers(id).some((m) => m.end);
  const headOf = (id: number) => answers(id).find((m) => m.head)?.head;
  return { server, send, received, until, body, sent, answers, ended, headOf, errors, close: () => port1.close() };
}

type Answer = Extract<PumpToMain, { type: 'answer' }>;

/** A request whose body streams after it (`body` and `end` messages follow). */
const head = (id: number, method: string, url: string, headers: string[] = ['Host', 'example.test:3050']): PumpToHub => ({ type: 'request', ended: false, id, method, url, headers, remoteAddress: '127.0.0.1' });
/** A whole request in one message. */
const whole = (id: number, method: string, url: string, body: string | null = null): PumpToHub => ({
  type: 'request',
  ended: true,
  body: body === null ? null : new TextEncoder().encode(body),
  id,
  method,
  url,
  headers: ['Host', 'example.test:3050'],
  remoteAddress: '127.0.0.1',
});

test('pump server :: a request streams in, the answer streams out with its head, bytes and end', async () => {
  const seen: { url: string; method: string; body: string; type: string | null }[] = [];
  const p = setup(async (request) => {
    seen.push({ url: request.url, method: request.method, body: await request.text(), type: request.headers.get('content-type') });
    return new Response('pong', { status: 201, headers: { 'X-Answer': 'yes' } });
  });
  p.send(head(7, 'POST', '/mcp?x=1', ['Host', 'example.test:3050', 'Content-Type', 'application/json']));
  p.send({ type: 'body', id: 7, chunk: new TextEncoder().encode('{"a":') });
  p.send({ type: 'body', id: 7, chunk: new TextEncoder().encode('1}') });
  p.send({ type: 'end', id: 7 });
  await p.until(() => p.ended(7), 'the end');
  assert.equal(seen, [{ url: 'http://example.test:3050/mcp?x=1', method: 'POST', body: '{"a":1}', type: 'application/json' }]);
  const answerHead = p.headOf(7)!;
  assert.is(answerHead.status, 201);
  assert.ok(answerHead.headers.some(([n, v]) => n === 'x-answer' && v === 'yes'));
  assert.is(p.body(7), 'pong');
  const credits = p.received.filter((m) => m.type === 'credit').reduce((n, m) => n + (m as { bytes: number }).bytes, 0);
  assert.is(credits, 7, 'every body byte the app read is credited back');
  assert.is(p.server.active, 0);
  p.close();
});

test('pump server :: a whole request: the head leaves at once, the bytes and end of one turn in one message, no body credit', async () => {
  const seen: string[] = [];
  const p = setup(async (request) => {
    seen.push(await bodyText(request));
    // An SSE answer whose event comes a little later, as a tool call's does, and ends with it.
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          setTimeout(() => {
            controller.enqueue(new TextEncoder().encode('event: message\n'));
            controller.enqueue(new TextEncoder().encode('data: {}\n\n'));
            controller.close();
          }, 30);
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  });
  p.send(whole(5, 'POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/call"}'));
  await p.until(() => p.answers(5).length === 1, 'the head');
  assert.equal([p.answers(5)[0]!.head?.status, p.answers(5)[0]!.chunks.length, p.answers(5)[0]!.end], [200, 0, false], 'the head alone, before the bytes');
  await p.until(() => p.ended(5), 'the end');
  assert.equal(seen, ['{"jsonrpc":"2.0","id":1,"method":"tools/call"}']);
  assert.is(p.answers(5).length, 2, 'the bytes and the end in one message');
  const last = p.answers(5)[1]!;
  assert.equal([last.head, last.chunks.length, last.end], [undefined, 2, true]);
  assert.is(p.body(5), 'event: message\ndata: {}\n\n');
  assert.not.ok(p.received.some((m) => m.type === 'credit'), 'a body that came whole is not credited');
  p.close();
});

test('pump server :: with POSTs answered at once, a head waits for its first bytes (one message each), or leaves after HEAD_HOLD_MS; a lone POST\'s head and a GET\'s do not wait', async () => {
  // Each answer's event comes when the test says (by the request body's id), or never.
  const release = new Map<string, () => void>();
  const p = setup(async (request) => {
    const key = request.method === 'GET' ? 'get' : await bodyText(request);
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          release.set(key, () => {
            controller.enqueue(new TextEncoder().encode(`data: ${key}\n\n`));
            controller.close();
          });
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  });
  p.send(whole(1, 'POST', '/mcp', 'a'));
  await p.until(() => p.answers(1).length === 1, 'the lone POST\'s head');
  assert.equal([p.answers(1)[0]!.head?.status, p.answers(1)[0]!.chunks.length], [200, 0], 'a lone POST: the head at once');
  p.send(whole(2, 'POST', '/mcp', 'b'));
  p.send(whole(3, 'GET', '/mcp'));
  await p.until(() => release.has('b') && p.answers(3).length === 1, 'the second POST under way, the GET\'s head');
  await tick(30);
  assert.is(p.answers(2).length, 0, 'with another POST under way the head waits for the bytes');
  release.get('b')!();
  await p.until(() => p.ended(2), 'the second POST answered');
  assert.is(p.answers(2).length, 1, 'head, bytes and end in one message');
  assert.equal([p.answers(2)[0]!.head?.status, p.body(2)], [200, 'data: b\n\n']);
  const since = Date.now();
  p.send(whole(4, 'POST', '/mcp', 'c'));
  await p.until(() => p.answers(4).length === 1, 'the held head, without bytes');
  assert.ok(Date.now() - since >= HEAD_HOLD_MS - 5, `held ${Date.now() - since} ms`);
  assert.equal([p.answers(4)[0]!.head?.status, p.answers(4)[0]!.chunks.length, p.answers(4)[0]!.end], [200, 0, false], 'a head no bytes followed leaves alone');
  for (const key of ['a', 'c', 'get']) release.get(key)!();
  await p.until(() => p.ended(1) && p.ended(3) && p.ended(4), 'every answer ended');
  p.close();
});

test('pump server :: a POST stream that has sent its first bytes (a listen stream) does not hold the heads of the calls after it', async () => {
  // A hold longer than the test waits: a held head would time the test out.
  const p = setup(async (request) => {
    const key = await bodyText(request);
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          // The listen stream acknowledges at once and stays open; a call answers later.
          if (key === 'listen') controller.enqueue(new TextEncoder().encode('data: ack\n\n'));
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  }, { headHoldMs: 60_000 });
  p.send(whole(1, 'POST', '/mcp', 'listen'));
  await p.until(() => p.body(1) === 'data: ack\n\n', 'the acknowledgement');
  p.send(whole(2, 'POST', '/mcp', 'call'));
  await p.until(() => p.answers(2).length === 1, 'the call\'s head');
  assert.equal([p.answers(2)[0]!.head?.status, p.answers(2)[0]!.chunks.length], [200, 0], 'the head at once: no other call under way');
  p.close();
});

test('pump server :: a body that came whole is its bytes beside a Request without a body; a streamed one is the Request\'s; bodyText reads either', async () => {
  const seen: { bytes: string | null; own: string; text: string }[] = [];
  const p = setup(async (request) => {
    const bytes = wholeBodyOf(request);
    seen.push({ bytes: bytes ? new TextDecoder().decode(bytes) : null, own: bytes ? await request.clone().text() : '(streamed)', text: await bodyText(request) });
    return new Response('ok');
  });
  p.send(whole(7, 'POST', '/mcp', '{"id":7}'));
  await p.until(() => p.ended(7), 'the whole request answered');
  p.send(head(8, 'POST', '/mcp'));
  p.send({ type: 'body', id: 8, chunk: new TextEncoder().encode('{"id":8}') });
  p.send({ type: 'end', id: 8 });
  await p.until(() => p.ended(8), 'the streamed request answered');
  assert.equal(seen, [
    { bytes: '{"id":7}', own: '', text: '{"id":7}' },
    { bytes: null, own: '(streamed)', text: '{"id":8}' },
  ]);
  p.close();
});

test('pump server :: an answer complete at once is one message', async () => {
  const p = setup(async () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }));
  p.send(whole(6, 'GET', '/api/v1/servers'));
  await p.until(() => p.ended(6), 'the end');
  assert.is(p.answers(6).length, 1);
  assert.equal([p.answers(6)[0]!.head?.status, p.body(6)], [200, '{"ok":true}']);
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
  await p.until(() => p.ended(1) && p.ended(2), 'both answers');
  assert.is(p.headOf(1)!.failure, undefined);
  assert.is(p.headOf(2)!.failure, failureFrame(marked!));
  assert.match(p.headOf(2)!.failure!, /"id":9,"error":\{"code":-32603/);
  p.close();
});

test('pump server :: an app that throws answers 500 with a JSON-RPC body, and the error is reported', async () => {
  const p = setup(async () => {
    throw new Error('boom');
  });
  p.send(head(1, 'GET', '/api/v1/servers'));
  await p.until(() => p.ended(1), 'the end');
  assert.is(p.headOf(1)!.status, 500);
  assert.is(p.body(1), '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: boom","data":{"code":"internal"}},"id":null}');
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
  const sent = p.sent;
  await p.until(() => sent() >= PUMP_WINDOW_BYTES, 'a window of chunks');
  await tick(100);
  assert.is(sent(), PUMP_WINDOW_BYTES, 'no more than a window without credit');
  p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES });
  await p.until(() => sent() >= PUMP_WINDOW_BYTES * 2, 'the next window');
  await tick(100);
  assert.is(sent(), PUMP_WINDOW_BYTES * 2);
  p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES * 2 });
  await p.until(() => p.ended(1), 'the end');
  assert.is(sent(), PUMP_WINDOW_BYTES * 3);
  p.close();
});

test('pump server :: an answer the client does not read is held up to maxBacklogBytes past its window, then the client is cut off', async () => {
  const piece = new Uint8Array(256 * 1024);
  let cancelled = false;
  let aborted = false;
  const cutOff: number[] = [];
  // Like the SDK's event stream: every event enqueued at once, whatever the stream's backlog.
  const p = setup(
    async (request) => {
      request.signal.addEventListener('abort', () => (aborted = true));
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 40; i++) controller.enqueue(piece.slice());
          },
          cancel() {
            cancelled = true;
          },
        }),
      );
    },
    { maxBacklogBytes: 2 * 1024 * 1024, onBacklog: (bytes) => cutOff.push(bytes) },
  );
  p.send(head(1, 'GET', '/events'));
  await p.until(() => p.received.some((m) => m.type === 'reset'), 'the reset');
  const reset = p.received.find((m) => m.type === 'reset') as { reason: string };
  assert.match(reset.reason, /the client is not reading its answer/);
  assert.is(p.sent(), PUMP_WINDOW_BYTES, 'a window went out, no more');
  assert.equal(cutOff, [2 * 1024 * 1024 + piece.byteLength]);
  await p.until(() => cancelled && aborted, 'the answer cancelled, the request aborted');
  assert.is(p.server.active, 0);
  p.close();
});

// Found by an outside check: 30 clients that stopped reading 12 MB answers each stayed under the
// per-answer limit, and the service held 600 MB for them.
test('pump server :: answers held past their windows together are capped: past it, one that holds an eighth or more is cut; a small one is not', async () => {
  const piece = new Uint8Array(256 * 1024);
  const cutOff: [number, number | undefined][] = [];
  const p = setup(
    async (request) => {
      // /big: 3.5 MiB, under the per-answer limit; /small: 1.5 MiB (a window and two pieces behind it).
      const pieces = new URL(request.url).pathname === '/big' ? 14 : 6;
      return new Response(new ReadableStream<Uint8Array>({ start: (c) => void Array.from({ length: pieces }, () => c.enqueue(piece.slice())) }));
    },
    { maxBacklogBytes: 4 * 1024 * 1024, maxHeldBytes: 4 * 1024 * 1024, onBacklog: (bytes, held) => cutOff.push([bytes, held]) },
  );
  p.send(head(1, 'GET', '/small'));
  await p.until(() => p.sent() >= PUMP_WINDOW_BYTES, 'the small answer\'s window');
  p.send(head(2, 'GET', '/big'));
  await p.until(() => p.answers(2).length > 0, 'the first big answer');
  await tick(50);
  assert.equal(cutOff, [], 'two answers, 3 MiB held together: under the cap');
  p.send(head(3, 'GET', '/big'));
  await p.until(() => cutOff.length > 0, 'a cut');
  await tick(50);
  // Held together: 0.5 + 2.5 + 2.5 MiB past the windows. The answer that pushed it over holds more than an eighth: it goes.
  assert.equal(cutOff.length, 1);
  assert.ok(cutOff[0]![0] >= 512 * 1024 && cutOff[0]![1]! > 4 * 1024 * 1024, JSON.stringify(cutOff));
  const resets = p.received.filter((m) => m.type === 'reset').map((m) => (m as { id: number }).id);
  assert.equal(resets, [3], 'the small answer and the first big one are kept');
  p.close();
});

test('pump server :: a paced body (its source waits for the reader) is read no more than a window ahead', async () => {
  const piece = new Uint8Array(256 * 1024);
  let produced = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (produced >= PUMP_WINDOW_BYTES * 4) return controller.close();
        produced += piece.byteLength;
        controller.enqueue(piece.slice());
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
  markPaced(body);
  const p = setup(async () => new Response(body), { maxBacklogBytes: 1024 });
  p.send(head(1, 'GET', '/sse'));
  await p.until(() => p.sent() >= PUMP_WINDOW_BYTES, 'a window');
  await tick(100);
  assert.ok(produced <= PUMP_WINDOW_BYTES + 2 * piece.byteLength, `the source was not drained ahead (${produced} bytes made)`);
  assert.not.ok(p.received.some((m) => m.type === 'reset'), 'its backlog is its own: no cut');
  for (let credited = 0; !p.ended(1) && credited < 20; credited++) {
    p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES });
    await tick(30);
  }
  assert.is(p.sent(), PUMP_WINDOW_BYTES * 4);
  p.close();
});

test('pump server :: one answer bigger than maxBacklogBytes is never cut: it goes out as credit comes', async () => {
  const p = setup(async () => new Response(new Uint8Array(3 * 1024 * 1024)), { maxBacklogBytes: 1024 * 1024 });
  p.send(head(1, 'GET', '/api/v1/tools'));
  for (let credited = 0; !p.ended(1) && credited < 20; credited++) {
    await tick(30);
    p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES * 4 });
  }
  assert.ok(p.ended(1));
  assert.is(p.sent(), 3 * 1024 * 1024);
  assert.not.ok(p.received.some((m) => m.type === 'reset'));
  p.close();
});

test('pump server :: within maxBacklogBytes a held answer goes out whole as credit comes', async () => {
  const piece = new Uint8Array(256 * 1024);
  const p = setup(
    async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 12; i++) controller.enqueue(piece.slice());
            controller.close();
          },
        }),
      ),
    { maxBacklogBytes: 4 * 1024 * 1024 },
  );
  p.send(head(1, 'GET', '/events'));
  await p.until(() => p.sent() >= PUMP_WINDOW_BYTES, 'a window');
  await tick(50);
  assert.is(p.sent(), PUMP_WINDOW_BYTES);
  for (let credited = 0; !p.ended(1) && credited < 20; credited++) {
    p.send({ type: 'credit', id: 1, bytes: PUMP_WINDOW_BYTES });
    await tick(30);
  }
  assert.ok(p.ended(1));
  assert.is(p.sent(), 12 * piece.byteLength);
  assert.not.ok(p.received.some((m) => m.type === 'reset'));
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
  await p.until(() => p.sent() > 0, 'the first event');
  assert.is(p.server.active, 1);
  p.send({ type: 'abort', id: 3 });
  await p.until(() => aborted && cancelled, 'abort and cancel');
  assert.is(p.server.active, 0);
  assert.not.ok(p.ended() || p.received.some((m) => m.type === 'reset'), 'nothing more is sent for an aborted exchange');
  p.close();
});

test('pump server :: an abort from the main thread also aborts a whole POST (its Request has no body of its own)', async () => {
  let aborted = false;
  const p = setup(async (request) => {
    request.signal.addEventListener('abort', () => (aborted = true));
    return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('event: hello\n\n')) }), { headers: { 'Content-Type': 'text/event-stream' } });
  });
  p.send(whole(4, 'POST', '/mcp', '{"id":4}'));
  await p.until(() => p.sent() > 0, 'the first event');
  p.send({ type: 'abort', id: 4 });
  await p.until(() => aborted, 'the abort heard by the whole POST');
  p.close();
});

test('pump server :: a client gone mid-body leaves the body errored, never read as a whole one', async () => {
  const outcomes: string[] = [];
  const p = setup(async (request) => {
    try {
      outcomes.push(`read ${(await request.text()).length}`);
    } catch (error) {
      outcomes.push(`failed: ${(error as Error).message}`);
    }
    return new Response('done');
  });
  p.send(head(4, 'POST', '/mcp', ['Host', 'example.test:3050', 'Content-Type', 'application/json']));
  // A complete JSON text, then padding the client never finished sending.
  p.send({ type: 'body', id: 4, chunk: new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/call"}   ') });
  await tick();
  p.send({ type: 'abort', id: 4 });
  await p.until(() => outcomes.length === 1, 'the read to settle');
  assert.match(outcomes[0]!, /^failed: /);
  assert.is(p.server.active, 0);
  p.close();
});

// What fetch's Request refuses would throw in the hub's message handler and end the hub.
const refusals: [title: string, method: string, url: string, headers: string[], status: number, code: string][] = [
  ['TRACE', 'TRACE', '/mcp', ['Host', 'example.test:3050'], 405, 'method_not_allowed'],
  ['CONNECT', 'CONNECT', '/mcp', ['Host', 'example.test:3050'], 405, 'method_not_allowed'],
  ['an asterisk-form target', 'OPTIONS', '*', ['Host', 'example.test:3050'], 400, 'bad_request'],
];
for (const [title, method, url, headers, status, code] of refusals) {
  test(`pump server :: ${title} is answered ${status} ${code}; the hub serves the next request`, async () => {
    const p = setup(async (request) => new Response(`served ${new URL(request.url).pathname}`));
    p.send(head(1, method, url, headers));
    await p.until(() => p.ended(1), 'the refusal');
    assert.is(p.headOf(1)!.status, status);
    assert.is(JSON.parse(p.body(1)).error, code);
    assert.equal(p.errors, []);
    p.send(whole(2, 'GET', '/api/v1/servers'));
    await p.until(() => p.ended(2), 'the next answer');
    assert.is(p.body(2), 'served /api/v1/servers');
    assert.is(p.server.active, 0);
    p.close();
  });
}

// A Host no URL can carry (the Host check off) and a proxy's absolute-form target are served by path.
const served: [title: string, url: string, headers: string[], path: string][] = [
  ['a Host with a space', '/api/v1/servers', ['Host', 'a b'], '/api/v1/servers'],
  ['two Hosts joined', '/api/v1/servers?x=1', ['Host', '127.0.0.1:3050', 'Host', 'x'], '/api/v1/servers?x=1'],
  ['an absolute-form target', 'http://x/api/v1/servers', ['Host', '127.0.0.1:3050'], '/api/v1/servers'],
];
for (const [title, url, headers, path] of served) {
  test(`pump server :: ${title} is served by its path`, async () => {
    const p = setup(async (request) => new Response(new URL(request.url).pathname + new URL(request.url).search));
    p.send({ type: 'request', ended: true, body: null, id: 1, method: 'GET', url, headers, remoteAddress: '127.0.0.1' });
    await p.until(() => p.ended(1), 'the answer');
    assert.is(p.headOf(1)!.status, 200);
    assert.is(p.body(1), path);
    p.close();
  });
}

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

test('pump server :: stdio mode: several writers waiting for the window all go on once it is credited', async () => {
  const p = setup(async () => new Response(null));
  const done: number[] = [];
  const writes = [0, 1, 2].map((i) => p.server.writeStdout(new Uint8Array(PUMP_WINDOW_BYTES)).then(() => void done.push(i)));
  await p.until(() => p.received.filter((m) => m.type === 'stdout').length === 3, 'three stdout messages');
  await tick(20);
  assert.equal(done, [], 'all three wait');
  p.send({ type: 'stdoutCredit', bytes: 3 * PUMP_WINDOW_BYTES });
  await p.until(() => done.length === 3, 'every writer to go on');
  await Promise.all(writes);
  assert.equal(done.sort(), [0, 1, 2]);
  p.close();
});

// A session is not idle while one of its answers streams: the pump says when each has ended.
test('pump server :: the end of an answer is told once, whether it was written out or its client went away', async () => {
  const ends: string[] = [];
  let stream!: ReadableStreamDefaultController<Uint8Array>;
  const p = setup(async (request) => {
    const which = new URL(request.url).pathname;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (stream = c) });
    return onAnswerEnd(new Response(body, { headers: { 'Content-Type': 'text/event-stream' } }), () => ends.push(which));
  });
  p.send(head(5, 'GET', '/written'));
  await p.until(() => p.headOf(5) !== undefined, 'the first head');
  const first = stream;
  first.enqueue(new TextEncoder().encode('event: a\n\n'));
  await tick();
  assert.equal(ends, [], 'not while it streams');
  first.close();
  await p.until(() => ends.length === 1, 'the end of the written answer');
  p.send(head(6, 'GET', '/abandoned'));
  await p.until(() => p.headOf(6) !== undefined, 'the second head');
  p.send({ type: 'abort', id: 6 });
  await p.until(() => ends.length === 2, 'the end of the abandoned answer');
  await tick();
  assert.equal(ends, ['/written', '/abandoned']);
  p.close();
});

test.run();