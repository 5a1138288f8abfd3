// How a failed call is named when it crosses to the hub: the kind the catalogue maps to a code,
// and words that name the backend; a backend's own MCP error passes with its code and data.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { callErrorOf, callTimedOut, notConnected } from '../../lib/backend/call-errors.ts';
import { CALL_FAILURE, type CallError } from '../../lib/shared/messages/calls.ts';

const of = (error: unknown, cancelled = false) => callErrorOf('db', 30_000, error, cancelled);

const TABLE: [string, unknown, boolean, CallError][] = [
  ['a cancellation wins over the error it caused', new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), true, { kind: 'cancelled', code: -32603, message: "request to backend 'db' was cancelled" }],
  ['the SDK\'s own timeout', new SdkError(SdkErrorCode.RequestTimeout, 'timed out'), false, { kind: 'timeout', code: -32603, message: "request to backend 'db' timed out after 30000 ms (requestTimeout)" }],
  ['the connection closed during the call', new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), false, { kind: 'disconnected', code: -32603, message: "backend 'db' disconnected during the request" }],
  ['the request could not be sent', new SdkError(SdkErrorCode.SendFailed, 'EPIPE'), false, { kind: 'disconnected', code: -32603, message: "Backend 'db' is not connected" }],
  ['no transport any more', new SdkError(SdkErrorCode.NotConnected, 'Not connected'), false, { kind: 'disconnected', code: -32603, message: "Backend 'db' is not connected" }],
  ['a plain "Not connected"', new Error('Not connected'), false, { kind: 'disconnected', code: -32603, message: "Backend 'db' is not connected" }],
  [
    'a remote backend that cannot be reached',
    new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }),
    false,
    { kind: 'disconnected', code: -32603, message: "backend 'db' cannot be reached: fetch failed: connect ECONNREFUSED 127.0.0.1:9" },
  ],
  ['anything else is ours', new TypeError('x is not a function'), false, { kind: 'internal', code: -32603, message: "backend 'db' failed the request: x is not a function" }],
  ['a thrown string', 'boom', false, { kind: 'internal', code: -32603, message: "backend 'db' failed the request: boom" }],
  ['a thrown null', null, false, { kind: 'internal', code: -32603, message: "backend 'db' failed the request: null" }],
];

for (const [what, error, cancelled, expected] of TABLE) {
  test(`call errors :: ${what}`, () => {
    assert.equal(of(error, cancelled), expected);
  });
}

test("call errors :: the backend's own MCP error keeps its code, message and data", () => {
  assert.equal(of(new ProtocolError(-32602, 'Invalid params: a is required', { field: 'a' })), { kind: 'mcp', code: -32602, message: 'Invalid params: a is required', data: { field: 'a' } });
  assert.equal(of(new ProtocolError(-32001, 'no data')), { kind: 'mcp', code: -32001, message: 'no data' }, 'no data key when it sent none');
});

test('call errors :: the service\'s own timer and a call to a backend that is down', () => {
  assert.equal(callTimedOut('db', 1_500), { kind: 'timeout', code: -32603, message: "request to backend 'db' timed out after 1500 ms (requestTimeout)" });
  assert.equal(notConnected('db'), { kind: 'disconnected', code: -32603, message: "Backend 'db' is not connected" });
});

test('call errors :: every kind has a catalogue code', () => {
  for (const [, error, cancelled] of TABLE) assert.ok(CALL_FAILURE[of(error, cancelled).kind], of(error, cancelled).kind);
});

test.run();
