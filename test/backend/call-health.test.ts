import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import type { RunnerEvent } from '../../lib/shared/messages/state-events.ts';
import { harness, STDIO_SERVER, stdioSpec } from './helpers/runner-harness.ts';

let nextCallId = 1;
const call = (name: string, args: Record<string, unknown> = {}): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: args }, wantsProgress: false });
const timesOut = () => call('slow', { steps: 1, delayMs: 3_000 });

test('call health :: consecutive timeouts are counted; a result or an MCP error from the backend resets the count', async () => {
  const h = harness(stdioSpec('sluggish', STDIO_SERVER, { requestTimeout: 300 }));
  const counts = () => h.events.flatMap((e: RunnerEvent) => (e.type === 'callHealth' ? [e.consecutiveTimeouts] : []));
  try {
    await h.runner.start();
    await h.next('connected');
    const steps: [BackendCall, string, number[]][] = [
      [timesOut(), 'timeout', [1]],
      [timesOut(), 'timeout', [1, 2]],
      [call('echo', { text: 'hi' }), 'ok', [1, 2, 0]],
      [call('echo', { text: 'hi' }), 'ok', [1, 2, 0]],
      [timesOut(), 'timeout', [1, 2, 0, 1]],
      [{ ...call('echo'), method: 'resources/read', params: { uri: 'fixture://missing' } }, 'mcp', [1, 2, 0, 1, 0]],
    ];
    for (const [request, kind, expected] of steps) {
      const outcome = await h.runner.request(request);
      assert.is(outcome.ok ? 'ok' : outcome.error.kind, kind, JSON.stringify(outcome));
      assert.equal(counts(), expected, `after a call that ended as ${kind}`);
    }
    const last = h.events.findLast((e) => e.type === 'callHealth');
    assert.ok(last && last.type === 'callHealth' && typeof last.at === 'number');
  } finally {
    await h.close();
  }
});

test('call health :: a call that was cancelled or never sent leaves the count as it was', async () => {
  const h = harness(stdioSpec('sluggish', STDIO_SERVER, { requestTimeout: 300 }));
  try {
    await h.runner.start();
    await h.next('connected');
    await h.runner.request(timesOut());
    const slow = timesOut();
    const pending = h.runner.request(slow);
    h.runner.cancel(slow.callId);
    const cancelled = await pending;
    assert.is(!cancelled.ok && cancelled.error.kind, 'cancelled');
    await h.runner.stop(500);
    const after = await h.runner.request(call('echo', { text: 'x' }));
    assert.is(!after.ok && after.error.kind, 'disconnected');
    assert.equal(h.events.flatMap((e) => (e.type === 'callHealth' ? [e.consecutiveTimeouts] : [])), [1]);
  } finally {
    await h.close();
  }
});

test.run();
