import { PassThrough } from 'node:stream';
import { SdkError, SdkErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PipeTransport } from '../../lib/backend/pipe-transport.ts';

const LIMIT = 1024;

function setup() {
  const stdout = new PassThrough(); // what the backend writes
  const stdin = new PassThrough(); // what we write to the backend
  const oversized: number[] = [];
  const strays: string[] = [];
  const transport = new PipeTransport(stdout, stdin, { name: 'pipe', maxMessageBytes: LIMIT, onOversized: (bytes) => oversized.push(bytes), onStray: (line) => strays.push(line.toString()) });
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => closed++;
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { stdout, stdin, transport, received, errors, oversized, strays, turn, closes: () => closed };
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

test('pipe-transport :: messages split across chunks arrive whole; lines that are not JSON are skipped and told', async () => {
  const { stdout, transport, received, errors, strays, turn } = setup();
  await transport.start();
  const text = `not json\n${line({ jsonrpc: '2.0', id: 1, result: {} })}${line({ jsonrpc: '2.0', id: 2, result: { a: 1 } })}`;
  for (let i = 0; i < text.length; i += 7) stdout.write(text.slice(i, i + 7));
  await turn();
  assert.equal(received, [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: { a: 1 } }]);
  assert.equal(errors, []);
  assert.equal(strays, ['not json']);
});

test('pipe-transport :: JSON that is not JSON-RPC (a JSON log line) is skipped and told like any stray line', async () => {
  const { stdout, transport, received, errors, strays, turn } = setup();
  await transport.start();
  stdout.write(`${line({ level: 30, msg: 'started' })}${line({ jsonrpc: '2.0', id: 1, result: {} })}`);
  await turn();
  assert.equal(strays, ['{"level":30,"msg":"started"}']);
  assert.equal(errors, [], 'not an error of the connection');
  assert.equal(received, [{ jsonrpc: '2.0', id: 1, result: {} }]);
});

test('pipe-transport :: after a notification the rest of the chunk waits a turn', async () => {
  const { stdout, transport, received, turn } = setup();
  await transport.start();
  const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
  stdout.write(`${line(progress)}${line({ jsonrpc: '2.0', id: 1, result: {} })}`);
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(received, [progress], 'the response waits');
  await turn();
  assert.is(received.length, 2);
});

for (const [order, serialize] of [
  ['jsonrpc, id, result', (id: number, text: string) => line({ jsonrpc: '2.0', id, result: { text } })],
  ['result, jsonrpc, id', (id: number, text: string) => line({ result: { text }, jsonrpc: '2.0', id })],
] as const) {
  test(`pipe-transport :: an oversized answer to a request in flight fails that request and is reported (${order})`, async () => {
    const { stdout, transport, received, oversized, turn } = setup();
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'big' } });
    const answer = serialize(7, 'x'.repeat(5000));
    stdout.write(answer);
    stdout.write(line({ jsonrpc: '2.0', id: 8, result: {} }));
    await turn();
    const bytes = Buffer.byteLength(answer) - 1;
    assert.equal(received, [
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32603, message: `backend 'pipe' sent a message of ${bytes} bytes, over the limit of ${LIMIT} bytes (--max-message-bytes)`, data: { code: 'message_too_large', bytes, limit: LIMIT } },
      },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
    assert.equal(oversized, [bytes], 'reported (logged) too');
  });
}

test('pipe-transport :: an oversized message that answers nothing in flight is only reported', async () => {
  const { stdout, transport, received, oversized, turn } = setup();
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
  await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  stdout.write(line({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(2000) } })); // answers a cancelled request
  stdout.write(line({ jsonrpc: '2.0', id: 2, result: { text: 'x'.repeat(2000) } })); // answers nothing we sent
  stdout.write(line({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(2000) } }));
  await turn();
  assert.equal(received, []);
  assert.is(oversized.length, 3);
  assert.ok(oversized.every((bytes) => bytes > LIMIT));
});

test('pipe-transport :: an answer to a request in flight that is no valid JSON-RPC fails that request at once (found by an outside check: it waited for requestTimeout)', async () => {
  const { stdout, transport, received, strays, turn } = setup();
  await transport.start();
  for (const id of [1, 2, 3]) await transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: {} });
  const malformed = [
    '{"jsonrpc":"2.0","id":1,"error":{"code":1e20,"message":"x"}}',
    '{"jsonrpc":"2.0","id":2,"result":"not an object"}',
    '{"jsonrpc":"2.0","id":9,"error":{"code":1.5,"message":"answers nothing in flight"}}',
    '{"jsonrpc":"2.0","id":3,"method":"x","error":{}}',
  ];
  stdout.write(malformed.map((l) => `${l}\n`).join(''));
  await turn();
  const failed = (id: number) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: "backend 'pipe' answered the request with a message that is not valid JSON-RPC: not read", data: { code: 'backend_error', backend: 'pipe', reason: 'malformed_answer' } },
  });
  assert.equal(received, [failed(1), failed(2)], 'an id nothing waits for, or a line with a method, fails nothing');
  assert.equal(strays, malformed, 'each is told as a stray line too');
});

test('pipe-transport :: an answer received clears its request, so a later oversized copy fails nothing', async () => {
  const { stdout, transport, received, oversized, turn } = setup();
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
  stdout.write(line({ jsonrpc: '2.0', id: 1, result: {} }));
  stdout.write(line({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(2000) } }));
  await turn();
  assert.equal(received, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  assert.is(oversized.length, 1);
});

test('pipe-transport :: the end of stdout is a close by the peer', async () => {
  const { stdout, transport, turn, closes } = setup();
  await transport.start();
  stdout.end();
  assert.is(await transport.peerClosed, 'closed its stdout');
  await turn();
  assert.is(closes(), 1);
});

test('pipe-transport :: a close of ours is not a close by the peer', async () => {
  const { transport, closes } = setup();
  await transport.start();
  await transport.close();
  assert.is(closes(), 1);
  const settled = await Promise.race([transport.peerClosed.then(() => true), new Promise((resolve) => setImmediate(resolve, false))]);
  assert.is(settled, false);
});

test('pipe-transport :: a broken stdin fails the send as SendFailed, then closes the connection', async () => {
  const { stdin, transport, errors, turn, closes } = setup();
  await transport.start();
  stdin.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  await turn();
  assert.is(await transport.peerClosed, 'closed its stdin');
  assert.is(errors[0]?.message, 'write EPIPE');
  const failed = await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).then(() => null, (error: unknown) => error);
  assert.ok(failed instanceof SdkError && failed.code === SdkErrorCode.SendFailed, String(failed));
  await turn();
  assert.is(closes(), 1);
});

test('pipe-transport :: many sends held by a full pipe wait on one drain listener and all go on when it drains', async () => {
  const { stdin, transport } = setup();
  await transport.start();
  const big = 'x'.repeat(64 * 1024);
  const sent = Array.from({ length: 12 }, (_, i) => transport.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { big } }));
  assert.is(stdin.listenerCount('drain'), 1);
  let done = 0;
  for (const s of sent) void s.then(() => done++);
  stdin.resume(); // the backend reads
  await Promise.all(sent);
  assert.is(done, 12);
  assert.is(stdin.listenerCount('drain'), 0);
});

test.run();
