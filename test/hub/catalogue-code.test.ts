// Errors the MCP SDK writes itself get the catalogue's code in data.code, like the service's own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { codeForError, withCatalogueCode, withErrorCode } from '../../lib/hub/catalogue-code.ts';

const rpcError = (status: number, code: number, message: string, data?: unknown) =>
  Response.json({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }, { status });

test('catalogue code :: an SDK error answer without data gets the code of its number or status', async () => {
  const table: [number, number, string][] = [
    [415, -32000, 'bad_request'],
    [406, -32000, 'bad_request'],
    [400, -32700, 'bad_request'],
    [409, -32000, 'bad_request'],
    [404, -32001, 'session_not_found'],
    // A 2026-07-28 request of a method the SDK does not serve: 404, but no session is involved.
    [404, -32601, 'unknown_method'],
    [405, -32000, 'method_not_allowed'],
    [413, -32600, 'message_too_large'],
    [500, -32603, 'internal'],
  ];
  for (const [status, code, catalogue] of table) {
    const answer = await withCatalogueCode(rpcError(status, code, 'from the SDK'));
    assert.is(answer.status, status);
    assert.equal(await answer.json(), { jsonrpc: '2.0', error: { code, message: 'from the SDK', data: { code: catalogue } }, id: null }, `${status} ${code}`);
  }
  assert.is(codeForError(-32000, 502), 'internal');
  assert.is(codeForError(-32602), 'bad_request', 'in a message, no status: a client error');
});

test('catalogue code :: an SDK error whose data has no code gets one beside what it carries', async () => {
  const table: [number, number, Record<string, unknown>][] = [
    [400, -32020, { mismatch: { header: 'Mcp-Name', body: 'x' } }],
    [400, -32022, { supported: ['2026-07-28'], requested: '2099-01-01' }],
    [400, -32021, { requiredCapabilities: { elicitation: {} } }],
  ];
  for (const [status, code, data] of table) {
    const answer = (await (await withCatalogueCode(rpcError(status, code, 'from the SDK', data))).json()) as { error: { data: unknown } };
    assert.equal(answer.error.data, { ...data, code: 'bad_request' }, String(code));
  }
});

test('catalogue code :: answers that have a code, succeed, stream or are not JSON pass as they are', async () => {
  const own = rpcError(503, -32603, 'restarting', { code: 'hub_unavailable' });
  assert.equal(await (await withCatalogueCode(own)).json(), { jsonrpc: '2.0', error: { code: -32603, message: 'restarting', data: { code: 'hub_unavailable' } }, id: null });
  const nothing = rpcError(400, -32000, 'data is null', null);
  assert.equal(((await (await withCatalogueCode(nothing)).json()) as { error: { data: unknown } }).error.data, { code: 'bad_request' }, 'null data is no data');
  const odd = rpcError(400, -32000, 'data is a string', 'why');
  assert.equal(((await (await withCatalogueCode(odd)).json()) as { error: { data: unknown } }).error.data, 'why', 'data that is no object is kept');
  const ok = Response.json({ jsonrpc: '2.0', result: {}, id: 1 });
  assert.is(await withCatalogueCode(ok), ok, 'a success is not read');
  // A refused subscriptions/listen: 200 with a JSON error, read when asked to.
  const listen = Response.json({ jsonrpc: '2.0', error: { code: -32602, message: "Invalid params: 'notifications' is required" }, id: 1 });
  assert.equal(((await (await withCatalogueCode(listen, { anyStatus: true })).json()) as { error: { data: unknown } }).error.data, { code: 'bad_request' });
  const stream = new Response('event: message\n\n', { headers: { 'content-type': 'text/event-stream' } });
  assert.is(await withCatalogueCode(stream), stream);
  const text = await withCatalogueCode(new Response('Not Found', { status: 404, headers: { 'content-type': 'application/json' } }));
  assert.equal([text.status, await text.text()], [404, 'Not Found'], 'a body that is no JSON is kept');
});

test('catalogue code :: messages to a client: errors coded, everything else untouched', () => {
  const table: [JSONRPCMessage, unknown][] = [
    [{ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }, { code: 'unknown_method' }],
    [{ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid cursor: "x"' } }, { code: 'bad_request' }],
    [{ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Unknown tool', data: { code: 'unknown_tool', tool: 't' } } }, { code: 'unknown_tool', tool: 't' }],
    [{ jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'oops', data: { reason: 'x' } } }, { reason: 'x', code: 'internal' }],
  ];
  for (const [message, data] of table) assert.equal((withErrorCode(message) as { error: { data: unknown } }).error.data, data, JSON.stringify(message));
  const result: JSONRPCMessage = { jsonrpc: '2.0', id: 5, result: {} };
  assert.is(withErrorCode(result), result);
  const notification: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
  assert.is(withErrorCode(notification), notification);
});

test.run();
