import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { autogroupRetryMs, lowerChildAutogroup } from '../../lib/backend/child-autogroup.ts';
import type { AutogroupOutcome } from '../../lib/shared/priority.ts';

// The kernel answers EAGAIN only to unprivileged processes; these stand in for it.
function answers(...outcomes: AutogroupOutcome[]) {
  const calls: [number, number][] = [];
  return { calls, attempt: (pid: number, nice: number) => (calls.push([pid, nice]), outcomes[Math.min(calls.length - 1, outcomes.length - 1)]!) };
}

test('child autogroup :: applied at once: one attempt', async () => {
  const kernel = answers({ outcome: 'applied', nice: 10 });
  const lowering = lowerChildAutogroup(42, 10, { attempt: kernel.attempt });
  assert.equal(await lowering.settled, { outcome: 'applied', nice: 10 });
  assert.equal(kernel.calls, [[42, 10]]);
});

test('child autogroup :: a busy kernel is asked again after the backoff until it takes the change', async () => {
  const kernel = answers({ outcome: 'busy' }, { outcome: 'busy' }, { outcome: 'applied', nice: 7 });
  const waits: number[] = [];
  const lowering = lowerChildAutogroup(42, 7, { attempt: kernel.attempt, retryMs: (n) => (waits.push(n), 1) });
  assert.equal(await lowering.settled, { outcome: 'applied', nice: 7 });
  assert.is(kernel.calls.length, 3);
  assert.equal(waits, [1, 2], 'one wait after each busy answer');
});

test('child autogroup :: attempts run out: busy is the outcome', async () => {
  const kernel = answers({ outcome: 'busy' });
  const lowering = lowerChildAutogroup(42, 7, { attempt: kernel.attempt, retryMs: () => 1, maxAttempts: 4 });
  assert.equal(await lowering.settled, { outcome: 'busy' });
  assert.is(kernel.calls.length, 4);
});

test('child autogroup :: cancelled while waiting (the child exited): no further attempt', async () => {
  const kernel = answers({ outcome: 'busy' });
  const lowering = lowerChildAutogroup(42, 7, { attempt: kernel.attempt, retryMs: () => 20 });
  lowering.cancel();
  assert.equal(await lowering.settled, { outcome: 'cancelled' });
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.is(kernel.calls.length, 1);
  lowering.cancel(); // a second cancel changes nothing
});

test('child autogroup :: failed and absent end at once', async () => {
  for (const outcome of [{ outcome: 'absent' }, { outcome: 'failed', reason: 'EPERM' }] as AutogroupOutcome[]) {
    const kernel = answers(outcome);
    assert.equal(await lowerChildAutogroup(1, 7, { attempt: kernel.attempt, retryMs: () => 1 }).settled, outcome);
    assert.is(kernel.calls.length, 1);
  }
});

test('child autogroup :: the backoff doubles from 100 ms to 2 s, with under 100 ms of jitter', () => {
  for (const [n, base] of [[1, 100], [2, 200], [3, 400], [5, 1600], [6, 2000], [30, 2000]] as const) {
    const ms = autogroupRetryMs(n);
    assert.ok(ms >= base && ms < base + 100, `attempt ${n}: ${ms} ms`);
  }
});

test.run();
