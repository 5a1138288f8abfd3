// What ends a streamed answer if its hub dies: a JSON-RPC error for each request it answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failureFrame, requestIds, setFailureIds, watchFailureFrame, withFailureFrame } from '../../lib/hub/failure-frame.ts';
import { LegacySseServerTransport } from '../../lib/hub/sse-transport.ts';
import { Messages } from '../../lib/shared/errors.ts';

const sse = () => new Response('', { headers: { 'content-type': 'text/event-stream' } });

test('failure frame :: the ids of the requests in a body, one or a batch; notifications and responses have none', () => {
  assert.equal(requestIds({ jsonrpc: '2.0', id: 3, method: 'tools/call' }), [3]);
  assert.equal(requestIds([{ id: 'a', method: 'x' }, { method: 'notifications/x' }, { id: 2, result: {} }, { id: 4, method: 'y' }]), ['a', 4]);
  assert.equal(requestIds(undefined), []);
  assert.equal(requestIds({ id: null, method: 'x' }), []);
});

test('failure frame :: a streamed answer to requests gets SSE errors for each; other answers none', () => {
  const streamed = withFailureFrame(sse(), [{ id: 1, method: 'a' }, { id: 'two', method: 'b' }]);
  const error = { code: -32603, message: Messages.hubFailed, data: { code: 'hub_failed' } };
  assert.is(
    failureFrame(streamed),
    `\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, error })}\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'two', error })}\n\n`,
  );
  assert.is(failureFrame(withFailureFrame(Response.json({}), { id: 1, method: 'a' })), undefined, 'a JSON answer is complete or nothing');
  assert.is(failureFrame(withFailureFrame(sse(), { method: 'notifications/initialized' })), undefined);
  assert.is(failureFrame(withFailureFrame(sse(), undefined)), undefined, 'a GET stream');
});

test('failure frame :: a stream that answers requests as they come reports the ones it owes', () => {
  const response = sse();
  const heard: (string | undefined)[] = [];
  const stop = watchFailureFrame(response, (frame) => heard.push(frame));
  setFailureIds(response, [5]);
  assert.match(failureFrame(response)!, /"id":5,"error"/);
  setFailureIds(response, []);
  assert.is(failureFrame(response), undefined);
  stop();
  setFailureIds(response, [6]);
  assert.is(heard.length, 2, 'no longer heard once stopped');
  assert.match(heard[0]!, /"id":5/);
  assert.is(heard[1], undefined);
});

test('failure frame :: the legacy SSE transport owes each request it was posted until its answer has left', async () => {
  const transport = new LegacySseServerTransport({ postPath: '/messages', initialRequest: new Request('http://x/sse'), idPrefix: 'h0-', keepAliveMs: 0 });
  const heard: (string | undefined)[] = [];
  watchFailureFrame(transport.response, (frame) => heard.push(frame));
  await transport.start();
  const post = (body: unknown) => transport.handlePost(new Request('http://x/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await post({ jsonrpc: '2.0', id: 'b', method: 'tools/list' });
  assert.is(heard.length, 2, 'a notification owes nothing');
  assert.match(heard[1]!, /"id":1,.*"id":"b"/s);
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  assert.is(heard.length, 2, 'still owed until its bytes have left');
  await new Promise((r) => setImmediate(r));
  assert.is(heard.length, 3);
  assert.not.match(heard[2]!, /"id":1,/);
  assert.match(heard[2]!, /"id":"b"/);
  await transport.close();
});

test.run();
