// The log line of a failed routed call: its level, the catalogue's code, what it named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callFailureLine } from '../../lib/backend/call-failure-log.ts';
import type { CallError } from '../../lib/shared/messages/calls.ts';

const error = (kind: CallError['kind'], message = 'm'): CallError => ({ kind, code: -32603, message });
const tool = { method: 'tools/call' as const, params: { name: 'search', arguments: {} } };

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

test.run();
