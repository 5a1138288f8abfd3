// The backend worker's line parser must accept, reject and return exactly what the SDK's own
// deserializeMessage does, on the fast path (plain result responses) and off it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deserializeMessage } from '@modelcontextprotocol/client';
import { parseJsonRpcLine } from '../../lib/backend/jsonrpc-line.ts';

const lines: Record<string, unknown> = {
  'result, integer id': { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(4096) }] } },
  'result, string id': { jsonrpc: '2.0', id: 'a-1', result: {} },
  'result with _meta': { jsonrpc: '2.0', id: 2, result: { _meta: { progressToken: 1, 'io.modelcontextprotocol/serverInfo': { name: 1 } }, content: [] } },
  'result with a 2026-07-28 _meta': { jsonrpc: '2.0', id: 2, result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } }, content: [{ type: 'text', text: 'x'.repeat(4096) }] } },
  'result, serverInfo with a key the schema drops': { jsonrpc: '2.0', id: 2, result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1', vendor: 'acme' } } } },
  'result, malformed serverInfo': { jsonrpc: '2.0', id: 2, result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x' } } } },
  'result, id past the safe integers': { jsonrpc: '2.0', id: 2 ** 53, result: {} },
  'result, id 1e300': { jsonrpc: '2.0', id: 1e300, result: {} },
  'result, empty _meta': { jsonrpc: '2.0', id: 2, result: { _meta: {} } },
  'result, null _meta': { jsonrpc: '2.0', id: 2, result: { _meta: null } },
  'result, array _meta': { jsonrpc: '2.0', id: 2, result: { _meta: [] } },
  'result, string _meta': { jsonrpc: '2.0', id: 2, result: { _meta: 'x' } },
  'result, string progressToken': { jsonrpc: '2.0', id: 2, result: { _meta: { progressToken: 't' } } },
  'result, fractional progressToken': { jsonrpc: '2.0', id: 2, result: { _meta: { progressToken: 1.5 } } },
  'result, object progressToken': { jsonrpc: '2.0', id: 2, result: { _meta: { progressToken: {} } } },
  'result, related task': { jsonrpc: '2.0', id: 2, result: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', extra: 1 } } } },
  'result, bad related task': { jsonrpc: '2.0', id: 2, result: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } } },
  'result, fractional id': { jsonrpc: '2.0', id: 1.5, result: {} },
  'result, null id': { jsonrpc: '2.0', id: null, result: {} },
  'result, array result': { jsonrpc: '2.0', id: 1, result: [] },
  'result, null result': { jsonrpc: '2.0', id: 1, result: null },
  'result, string result': { jsonrpc: '2.0', id: 1, result: 'ok' },
  'result, extra key': { jsonrpc: '2.0', id: 1, result: {}, extra: true },
  'result, wrong version': { jsonrpc: '1.0', id: 1, result: {} },
  'result, no version': { id: 1, result: {} },
  'result and error': { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
  'error': { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found', extra: 1 } },
  'error without id': { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
  'request': { jsonrpc: '2.0', id: 4, method: 'sampling/createMessage', params: { messages: [] } },
  'notification': { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
  'array': [{ jsonrpc: '2.0', id: 1, result: {} }],
  'number': 42,
  'null': null,
};

const outcome = (parse: () => unknown) => {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    return { ok: false, error: (error as Error).name };
  }
};

for (const [name, value] of Object.entries(lines)) {
  test(`parseJsonRpcLine :: ${name} as the SDK parses it`, () => {
    const text = JSON.stringify(value);
    assert.equal(outcome(() => parseJsonRpcLine(text)), outcome(() => deserializeMessage(text)));
  });
}

for (const [name, text] of Object.entries({
  'result with an own __proto__ key': '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1},"k":1}}',
  '_meta with an own __proto__ key': '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"__proto__":{"x":1},"k":1}}}',
})) {
  test(`parseJsonRpcLine :: ${name} as the SDK parses it`, () => {
    assert.equal(outcome(() => parseJsonRpcLine(text)), outcome(() => deserializeMessage(text)));
  });
}

test('parseJsonRpcLine :: text that is not JSON throws a SyntaxError (the transport ignores such lines)', () => {
  assert.throws(() => parseJsonRpcLine('starting server...'), (error: unknown) => error instanceof SyntaxError);
});

test.run();
