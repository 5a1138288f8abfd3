// stdio mode's transport in the hub, driven through a stand-in channel: what stdin's end means
// for the requests read by then, the last line without its '\n', and questions to the client.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { ChannelStdioTransport, type StdioChannel } from '../../lib/hub/stdio-transport.ts';

function setup(maxMessageBytes = 1024 * 1024, window: { full: boolean } = { full: false }) {
  const written: Record<string, unknown>[] = [];
  let ended = 0;
  // What the main thread hears of the requests owed: each message, and the set they make.
  const told: { add: (string | number)[]; remove: (string | number)[] }[] = [];
  const owed = new Set<string | number>();
  const initializeLines: string[] = [];
  const channel: StdioChannel = {
    // Posted at once; a full window keeps the writer waiting (it never resolves then).
    writeStdout(chunk) {
      for (const line of Buffer.from(chunk).toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
      return window.full ? new Promise(() => undefined) : Promise.resolve();
    },
    creditStdin: () => undefined,
    endStdout: () => void ended++,
    stdioOwed: (add, remove) => {
      told.push({ add, remove });
      for (const id of add) owed.add(id);
      for (const id of remove) owed.delete(id);
    },
    stdioInitialize: (line) => void initializeLines.push(Buffer.from(line).toString()),
  };
  const transport = new ChannelStdioTransport(channel, maxMessageBytes);
  const received: JSONRPCMessage[] = [];
  let closed = 0;
  transport.onmessage = (message) => void received.push(message);
  transport.onclose = () => void closed++;
  const stdin = (text: string) => channel.onStdin!(new TextEncoder().encode(text));
  const line = (message: object) => stdin(`${JSON.stringify(message)}\n`);
  return { transport, channel, written, received, told, owed, initializeLines, stdin, line, ended: () => ended, closed: () => closed, end: () => channel.onStdinEnd!() };
}

const settle = () => new Promise((r) => setImmediate(r));
const request = (id: number, method = 'tools/call') => ({ jsonrpc: '2.0', id, method, params: {} });
const result = (id: number | string) => ({ jsonrpc: '2.0', id, result: {} }) as JSONRPCMessage;

test('stdio transport :: after stdin ends, every request read is still answered; then it closes and says so', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(1));
  t.line(request(2));
  t.end();
  await settle();
  assert.is(t.closed(), 0, 'two answers owed');
  await t.transport.send(result(2));
  assert.is(t.closed(), 0, 'one answer owed');
  await t.transport.send(result(1));
  await settle();
  assert.equal([t.closed(), t.ended()], [1, 1]);
  assert.equal(t.written.map((m) => m.id), [2, 1]);
});

test('stdio transport :: a last line without its newline is read at the end of stdin', async () => {
  const t = setup();
  await t.transport.start();
  t.stdin(JSON.stringify(request(9, 'tools/list')));
  assert.is(t.received.length, 0, 'not read before the end');
  t.end();
  assert.equal(t.received.map((m) => (m as { id: number }).id), [9]);
  await t.transport.send(result(9));
  await settle();
  assert.is(t.ended(), 1);
});

test('stdio transport :: bytes that arrived before the server started are read, then the last line, then the end counts', async () => {
  const t = setup();
  t.line(request(1));
  t.stdin(JSON.stringify(request(2)));
  t.end();
  await settle();
  assert.equal([t.received.length, t.closed()], [0, 0], 'nothing read nor closed before start');
  await t.transport.start();
  assert.equal(t.received.map((m) => (m as { id: number }).id), [1, 2]);
  await t.transport.send(result(1));
  await t.transport.send(result(2));
  await settle();
  assert.equal([t.closed(), t.ended()], [1, 1]);
});

test('stdio transport :: an empty stdin ends at once, even before the server starts', async () => {
  const t = setup();
  t.end();
  await settle();
  assert.equal([t.closed(), t.ended()], [1, 1]);
});

test('stdio transport :: a request the client cancelled is owed no answer; a listen ends with the connection', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(1));
  t.line({ jsonrpc: '2.0', id: 2, method: 'subscriptions/listen', params: {} });
  t.line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  t.end();
  await settle();
  assert.equal([t.closed(), t.ended()], [1, 1]);
});

test('stdio transport :: a malformed last line is answered with its error before the end', async () => {
  const t = setup();
  await t.transport.start();
  t.stdin('not json');
  t.end();
  await settle();
  assert.equal(t.written, [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON', data: { code: 'bad_request' } } }]);
  assert.is(t.ended(), 1);
});

test('stdio transport :: once stdin has ended, questions to the client fail at once: those asked before and those asked after', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(1));
  await t.transport.send({ jsonrpc: '2.0', id: 'q1', method: 'elicitation/create', params: {} } as JSONRPCMessage);
  await t.transport.send({ jsonrpc: '2.0', id: 'q0', method: 'roots/list', params: {} } as JSONRPCMessage);
  t.line({ jsonrpc: '2.0', id: 'q0', result: { roots: [] } });
  t.end();
  await settle();
  await t.transport.send({ jsonrpc: '2.0', id: 'q2', method: 'sampling/createMessage', params: {} } as JSONRPCMessage);
  await settle();
  const failed = t.received.filter((m) => 'error' in m) as { id: string; error: { code: number; message: string } }[];
  assert.equal(failed.map((m) => m.id), ['q1', 'q2'], 'q0 was answered; q2 never written');
  assert.equal(failed[0]!.error, { code: -32000, message: 'the client closed stdin: it cannot answer' });
  assert.equal(t.written.map((m) => m.id), ['q1', 'q0']);
  assert.is(t.closed(), 0, 'request 1 is still owed');
  await t.transport.send(result(1));
  await settle();
  assert.is(t.ended(), 1);
});

test('stdio transport :: a question the server gave up on (its cancellation went out) is not failed again at the end of stdin', async () => {
  const t = setup();
  await t.transport.start();
  await t.transport.send({ jsonrpc: '2.0', id: 'late', method: 'elicitation/create', params: {} } as JSONRPCMessage);
  await t.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'late', reason: 'Request timed out' } } as JSONRPCMessage);
  t.end();
  await settle();
  assert.equal(t.received, [], 'no error answer to a question nobody waits for');
  assert.is(t.ended(), 1, 'nothing owed: the transport ended');
});

test("stdio transport :: the client's initialize line goes to the main thread once the server took it; an initialize it refused does not", async () => {
  const t = setup();
  await t.transport.start();
  const init = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } });
  t.line(init(1));
  t.line(request(2));
  assert.equal(t.initializeLines, [], 'not before its answer');
  await t.transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } } as JSONRPCMessage);
  assert.equal(t.initializeLines.map((l) => JSON.parse(l)), [init(1)], 'only the initialize, once answered');
  t.line(init(3));
  await t.transport.send({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'this connection speaks 2026-07-28' } } as JSONRPCMessage);
  assert.is(t.initializeLines.length, 1, 'a refused initialize is not the session');
});

test('stdio transport :: a replayed initialize is heard first under an id of its own; its answer is kept from the client, then the session says it is initialized', async () => {
  const first = setup();
  await first.transport.start();
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } };
  first.line(init);
  await first.transport.send({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);

  const next = setup();
  next.line(request(3));
  next.channel.onReplay!(new TextEncoder().encode(first.initializeLines[0]!));
  await next.transport.start();
  const replayId = (next.received[0] as { id: string }).id;
  assert.match(replayId, /^agent:replayed-initialize:[0-9a-f-]{36}$/);
  assert.equal(next.received.map((m) => ('method' in m ? m.method : null)), ['initialize', 'tools/call']);
  assert.equal((next.received[0] as { params: unknown }).params, init.params, 'as the client sent it');
  await next.transport.send({ jsonrpc: '2.0', id: replayId, result: { protocolVersion: '2025-06-18' } } as JSONRPCMessage);
  assert.equal(next.written, [], 'the answer is not written to the client');
  assert.equal(next.received.at(-1), { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal([...next.owed], [3], 'the replay is owed nothing');
  assert.equal(next.initializeLines, [], 'a replay is not kept again');
});

test("stdio transport :: a client's own answer with an id like the replay's is written as any other; no replay, no interception", async () => {
  const t = setup();
  await t.transport.start();
  t.line({ jsonrpc: '2.0', id: 'agent:replayed-initialize', method: 'tools/list', params: {} });
  await t.transport.send({ jsonrpc: '2.0', id: 'agent:replayed-initialize', result: { tools: [] } } as JSONRPCMessage);
  assert.equal(t.written.map((m) => m.id), ['agent:replayed-initialize']);
  assert.equal([...t.owed], []);
});

test('stdio transport :: before stdin ends, answering everything does not close it', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(1));
  await t.transport.send(result(1));
  await settle();
  assert.equal([t.closed(), t.ended()], [0, 0]);
});

test('stdio transport :: the main thread always knows which requests are owed: the changes, told once per turn', async () => {
  const t = setup();
  await t.transport.start();
  t.stdin(`${JSON.stringify(request(1))}\n${JSON.stringify(request('two' as unknown as number))}\n`);
  await settle();
  assert.equal(t.told, [{ add: [1, 'two'], remove: [] }], 'two requests in one read: one message');
  await t.transport.send(result(1));
  await settle();
  assert.equal(t.told.at(-1), { add: [], remove: [1] });
  await t.transport.send(result('two'));
  await settle();
  assert.equal([...t.owed], [], 'nothing owed');
  assert.is(t.told.length, 3);
});

test('stdio transport :: an answer waiting for the window is no longer owed: a hub dying then would not have it failed too', async () => {
  const window = { full: true };
  const t = setup(1024 * 1024, window);
  await t.transport.start();
  t.line(request(1));
  await settle();
  assert.equal([...t.owed], [1]);
  void t.transport.send(result(1));
  await settle();
  assert.equal(t.written.map((m) => m.id), [1], 'posted');
  assert.equal([...t.owed], [], 'and no longer owed, though its write still waits');
});

test('stdio transport :: a repeated id is owed until each is answered; a malformed line with an owed id does not answer it', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(5));
  t.line(request(5));
  t.stdin('{"jsonrpc":"2.0","id":5,"method":\n');
  t.end();
  await settle();
  assert.equal([...t.owed], [5]);
  await t.transport.send(result(5));
  await settle();
  assert.equal([[...t.owed], t.ended()], [[5], 0], 'one of the two still owed');
  await t.transport.send(result(5));
  await settle();
  assert.equal([[...t.owed], t.ended()], [[], 1]);
});

test('stdio transport :: stopped before serving started, it answers the requests that waited with the shutdown error', async () => {
  const t = setup();
  t.line(request(1));
  t.line({ jsonrpc: '2.0', method: 'notifications/initialized' });
  t.stdin(JSON.stringify(request(2)));
  t.end();
  await t.transport.close();
  assert.equal(t.written.map((m) => [m.id, (m.error as { code: number }).code]), [[1, -32603], [2, -32603]]);
  assert.equal([...t.owed], []);
});

test('stdio transport :: a cancel read after stdin ended, before the server started, does not end the lines behind it', async () => {
  const t = setup();
  t.line(request(1));
  t.line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  t.line(request(2));
  t.end();
  await t.transport.start();
  assert.equal(t.received.map((m) => (m as { id?: number }).id ?? (m as { method: string }).method), [1, 'notifications/cancelled', 2]);
  await settle();
  assert.is(t.closed(), 0, 'request 2 is owed');
  await t.transport.send(result(2));
  await settle();
  assert.equal([t.closed(), t.ended()], [1, 1]);
});

test("stdio transport :: the client's oversized answer to our question fails the question; it gets no answer itself", async () => {
  const t = setup(200);
  await t.transport.start();
  await t.transport.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} } as JSONRPCMessage);
  t.line({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { text: 'x'.repeat(300) } } });
  await settle();
  const failed = t.received as unknown as { id: number; error: { code: number; message: string } }[];
  assert.equal(failed.map((m) => m.id), [0]);
  assert.is(failed[0]!.error.code, -32600);
  assert.match(failed[0]!.error.message, /^the client's answer of \d+ bytes is over the limit of 200 bytes/);
  assert.equal(t.written.map((m) => m.id), [0], 'only our question went out: no error line for an id the client did not use');
  // A request of the client's with that id, oversized, is still answered.
  t.line({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { text: 'x'.repeat(300) } });
  await settle();
  assert.is((t.written.at(-1) as { error: { code: number } }).error.code, -32600);
});

test('stdio transport :: closed by a shutdown, it answers each request still owed with an error, and the failure lines go', async () => {
  const t = setup();
  await t.transport.start();
  t.line(request(1));
  t.line(request(2));
  await t.transport.send(result(2));
  await t.transport.close();
  await settle();
  assert.equal(t.written.slice(1), [{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'The service is shutting down: the request was not completed', data: { code: 'service_stopping' } } }]);
  assert.equal([...t.owed], [], 'the main thread will not fail them again');
});

test('stdio transport :: a chunk is acknowledged, its requests told owed, before the server hears any of its messages (a hub that dies handling one leaves none unanswered and none read twice)', async () => {
  const events: string[] = [];
  const channel: StdioChannel = {
    writeStdout: () => Promise.resolve(),
    creditStdin: (bytes) => void events.push(`credit ${bytes}`),
    endStdout: () => undefined,
    stdioOwed: (add) => void events.push(`owed ${add.join(',')}`),
    stdioInitialize: () => undefined,
  };
  const transport = new ChannelStdioTransport(channel, 1024 * 1024);
  transport.onmessage = (message) => void events.push(`message ${'id' in message ? message.id : (message as { method: string }).method}`);
  await transport.start();
  const chunk = new TextEncoder().encode(`${JSON.stringify(request(1))}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(request(2))}\n`);
  channel.onStdin!(chunk);
  assert.equal(events, ['owed 1,2', `credit ${chunk.byteLength}`, 'message 1', 'message notifications/initialized', 'message 2']);
});

test.run();
