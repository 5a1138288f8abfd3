// What nests too deep for the SDK client's recursive validation never reaches it: an answer
// becomes its request's error, a request of the backend is answered with the error, a
// notification is dropped; shallower messages pass untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { type DeepMessageLine, refuseDeepMessages } from '../../lib/backend/deep-messages.ts';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

function transport() {
  const seen: unknown[] = [];
  const sent: unknown[] = [];
  const lines: DeepMessageLine[] = [];
  const t = { onmessage: (message: unknown) => void seen.push(message), send: async (message: unknown) => void sent.push(message) } as unknown as Transport;
  refuseDeepMessages(t, 'db', (line) => lines.push(line));
  return { deliver: (message: unknown) => t.onmessage!(message as JSONRPCMessage), seen, sent, lines };
}

const tooDeep = (id: number, message: string) => ({ jsonrpc: '2.0', id, error: { code: -32602, message, data: { code: 'too_deep', backend: 'db' } } });

test('deep messages :: each kind of message nested 1,001 levels, and 1,000', () => {
  const table: [string, unknown, { seen: unknown[]; sent: unknown[]; line: string | null }][] = [
    ['an answer fails its request', { jsonrpc: '2.0', id: 7, result: { deep: nested(1_000) } }, { seen: [tooDeep(7, "backend 'db' sent an answer nested more than 1000 levels deep: not read")], sent: [], line: "backend 'db' sent an answer nested more than 1000 levels deep: not read" }],
    ['a request is answered with the error', { jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: { deep: nested(999) } }, { seen: [], sent: [tooDeep(3, "backend 'db' sent a request (sampling/createMessage) nested more than 1000 levels deep: not read")], line: "backend 'db' sent a request (sampling/createMessage) nested more than 1000 levels deep: not read" }],
    ['a notification is dropped', { jsonrpc: '2.0', method: 'notifications/message', params: { data: nested(999) } }, { seen: [], sent: [], line: "backend 'db' sent a notification (notifications/message) nested more than 1000 levels deep: not read" }],
  ];
  for (const [what, message, expected] of table) {
    const t = transport();
    t.deliver(message);
    assert.equal(t.seen, expected.seen, what);
    assert.equal(t.sent, expected.sent, what);
    assert.equal(t.lines.map((l) => l.message), [expected.line], what);
    assert.is(t.lines[0]!.fields.code, 'too_deep', what);
    assert.not.ok('backend' in t.lines[0]!.fields, 'the worker\'s logger names the backend: no second key');
  }
  // 1,000 levels, the message's own level counted: it passes as it came.
  const t = transport();
  const shallow = { jsonrpc: '2.0', id: 8, result: { deep: nested(998) } };
  t.deliver(shallow);
  assert.equal(t.seen, [shallow]);
  assert.equal(t.lines, []);
});

test('deep messages :: a flood is told once; the rest are counted for the window', () => {
  const t = transport();
  for (let id = 1; id <= 5; id++) t.deliver({ jsonrpc: '2.0', id, result: { deep: nested(1_000) } });
  assert.is(t.seen.length, 5, 'every request still fails');
  assert.is(t.lines.length, 1, 'one line in full; the other four go into the summary at the end of the window');
});

test.run();
