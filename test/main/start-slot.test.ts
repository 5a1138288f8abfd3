// A backend's place at the start gate: granted in turn, given back on free() or after holdMs,
// a place in line left without a start.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StartQueue } from '../../lib/main/start-queue.ts';
import { StartSlot } from '../../lib/main/start-slot.ts';

// The queue's later turns run when the test says so.
function manualQueue(limit: number) {
  const turns: (() => void)[] = [];
  const queue = new StartQueue(limit, (run) => void turns.push(run));
  const drain = () => {
    while (turns.length) turns.shift()!();
  };
  return { queue, drain };
}

test('start slot :: without a gate the start is granted at once and nothing is held', () => {
  const slot = new StartSlot(undefined, 'a');
  let granted = 0;
  slot.ask(() => granted++);
  assert.is(granted, 1);
  assert.not.ok(slot.pending);
  slot.free();
});

test('start slot :: one slot: the second waits until the first is freed; asking again while pending does nothing', () => {
  const { queue, drain } = manualQueue(1);
  const a = new StartSlot(queue, 'a');
  const b = new StartSlot(queue, 'b');
  const got: string[] = [];
  a.ask(() => got.push('a'));
  a.ask(() => got.push('a again'));
  b.ask(() => got.push('b'));
  drain();
  assert.equal(got, ['a']);
  assert.ok(a.pending && b.pending);
  a.free();
  a.free();
  drain();
  assert.equal(got, ['a', 'b']);
  assert.not.ok(a.pending);
  assert.equal(queue.counts, { running: 1, waiting: 0 });
  b.free();
  assert.equal(queue.counts, { running: 0, waiting: 0 });
});

test('start slot :: a place in line given back never starts, and the next one in line does', () => {
  const { queue, drain } = manualQueue(1);
  const [a, b, c] = ['a', 'b', 'c'].map((n) => new StartSlot(queue, n));
  const got: string[] = [];
  a!.ask(() => got.push('a'));
  b!.ask(() => got.push('b'));
  c!.ask(() => got.push('c'));
  drain();
  b!.free();
  a!.free();
  drain();
  assert.equal(got, ['a', 'c']);
  c!.free();
});

test('start slot :: a slot held longer than holdMs is given back by itself', async () => {
  const { queue, drain } = manualQueue(1);
  const a = new StartSlot(queue, 'a', 20);
  const b = new StartSlot(queue, 'b', 20);
  const got: string[] = [];
  a.ask(() => got.push('a'));
  b.ask(() => got.push('b'));
  drain();
  assert.equal(got, ['a']);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.not.ok(a.pending, 'a gave its slot back');
  drain();
  assert.equal(got, ['a', 'b']);
  b.free();
});

test.run();
