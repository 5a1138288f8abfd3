// Errors the MCP SDK writes itself get the catalogue's code in data.code, like the service's own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codeForStatus, withCatalogueCode } from '../../lib/hub/catalogue-code.ts';

const rpcError = (status: number, code: number, message: string, data?: unknown) =>
  Response.json({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }, { status });

test('catalogue code :: an SDK error answer without data gets the code of its status', async () => {
  const table: [number, number, string][] = [
    [415, -32000, 'bad_request'],
    [406, -32000, 'bad_request'],
    [400, -32700, 'bad_request'],
    [409, -32000, 'bad_request'],
    [404, -32001, 'session_not_found'],
    [405, -32000, 'method_not_allowed'],
    [413, -32600, 'message_too_large'],
    [500, -32603, 'internal'],
  ];
  for (const [status, code, catalogue] of table) {
    const answer = await withCatalogueCode(rpcError(status, code, 'from the SDK'));
    assert.is(answer.status, status);
    assert.equal(await answer.json(), { jsonrpc: '2.0', error: { code, message: 'from the SDK', data: { code: catalogue } }, id: null }, String(status));
  }
  assert.is(codeForStatus(502), 'internal');
});

test('catalogue code :: answers that have data, succeed, stream or are not JSON pass as they are', async () => {
  const own = rpcError(503, -32603, 'restarting', { code: 'hub_unavailable' });
  assert.equal(await (await withCatalogueCode(own)).json(), { jsonrpc: '2.0', error: { code: -32603, message: 'restarting', data: { code: 'hub_unavailable' } }, id: null });
  const ok = Response.json({ jsonrpc: '2.0', result: {}, id: 1 });
  assert.is(await withCatalogueCode(ok), ok, 'a success is not read');
  const stream = new Response('event: message\n\n', { headers: { 'content-type': 'text/event-stream' } });
  assert.is(await withCatalogueCode(stream), stream);
  const text = await withCatalogueCode(new Response('Not Found', { status: 404, headers: { 'content-type': 'application/json' } }));
  assert.equal([text.status, await text.text()], [404, 'Not Found'], 'a body that is no JSON is kept');
});

test.run();
