// The log lines of failed routed calls: level, catalogue code, target, masking before any cut, and
// one line per code and window when calls fail by the hundred.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CallFailureLog, type CallFailureLine, callFailureLine } from '../../lib/backend/call-failure-log.ts';
import type { CallError } from '../../lib/shared/messages/calls.ts';
import { maskSecretValues } from '../../lib/shared/secret-values.ts';

const error = (kind: CallError['kind'], message = 'm'): CallError => ({ kind, code: -32603, message });
const tool = { method: 'tools/call' as const, params: { name: 'search', arguments: {} } };
const SECRET = 'Zq7hunter2Secret9xYwPlK';
const mask = (text: string) => maskSecretValues(text, [SECRET]);

test('call failure log :: each kind has its level and catalogue code', () => {
  const table: [CallError['kind'], string, string][] = [
    ['timeout', 'warn', 'backend_timeout'],
    ['disconnected', 'warn', 'backend_disconnected'],
    ['internal', 'error', 'internal'],
    ['mcp', 'debug', 'backend_error'],
    ['cancelled', 'debug', 'call_cancelled'],
  ];
  for (const [kind, level, code] of table) {
    const line = callFailureLine(tool, error(kind));
    assert.equal([line.level, line.fields.code, line.fields.method, line.fields.target], [level, code, 'tools/call', 'search'], kind);
  }
});

test('call failure log :: a resource is named by its URI, credentials redacted; a call without a target names none', () => {
  const read = callFailureLine({ method: 'resources/read', params: { uri: 'https://user:pw123@example.com/x?token=abc' } }, error('timeout'));
  assert.not.ok(String(read.fields.target).includes('pw123'), String(read.fields.target));
  assert.not.ok(String(read.fields.target).includes('abc'), String(read.fields.target));
  const complete = callFailureLine({ method: 'completion/complete', params: { ref: {} } }, error('timeout'));
  assert.not.ok('target' in complete.fields);
  assert.is(callFailureLine(tool, error('internal', 'failed with token=s3cret')).message.includes('s3cret'), false);
});

test("call failure log :: the server's secret is masked before the target is cut at 200 characters", () => {
  for (const at of [185, 190, 197]) {
    const line = callFailureLine({ method: 'resources/read', params: { uri: `file:///${'d'.repeat(at - 8)}${SECRET}` } }, error('timeout', `read of ${SECRET} timed out`), mask);
    assert.not.ok(JSON.stringify(line).includes(SECRET.slice(0, 4)), `at ${at}: ${JSON.stringify(line).slice(-60)}`);
  }
});

test('call failure log :: a hundred timeouts make one line and one summary per code; debug lines are not counted', () => {
  const lines: CallFailureLine[] = [];
  const log = new CallFailureLog((line) => lines.push(line), mask, () => 1_000);
  for (let i = 0; i < 100; i++) log.failed(tool, error('timeout', 'timed out'));
  for (let i = 0; i < 3; i++) log.failed(tool, error('disconnected', 'gone'));
  for (let i = 0; i < 3; i++) log.failed(tool, error('mcp', 'the tool said no'));
  assert.equal(lines.map((l) => [l.level, l.fields.code]), [['warn', 'backend_timeout'], ['warn', 'backend_disconnected'], ['debug', 'backend_error'], ['debug', 'backend_error'], ['debug', 'backend_error']]);
  log.flush();
  assert.equal(lines.slice(5).map((l) => [l.level, l.fields.code, l.fields.calls, l.message]), [
    ['warn', 'backend_timeout', 99, '99 more call(s) to this backend failed the same way (backend_timeout) within 10 s'],
    ['warn', 'backend_disconnected', 2, '2 more call(s) to this backend failed the same way (backend_disconnected) within 10 s'],
  ]);
});

test.run();
