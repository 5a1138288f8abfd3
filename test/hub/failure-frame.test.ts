// What ends a streamed answer if its hub dies: a JSON-RPC error for each request it answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failureFrame, requestIds, withFailureFrame } from '../../lib/hub/failure-frame.ts';
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
  const error = { code: -32603, message: Messages.hubFailed };
  assert.is(
    failureFrame(streamed),
    `\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, error })}\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'two', error })}\n\n`,
  );
  assert.is(failureFrame(withFailureFrame(Response.json({}), { id: 1, method: 'a' })), undefined, 'a JSON answer is complete or nothing');
  assert.is(failureFrame(withFailureFrame(sse(), { method: 'notifications/initialized' })), undefined);
  assert.is(failureFrame(withFailureFrame(sse(), undefined)), undefined, 'a GET stream');
});

test.run();
