import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunning } from '../../lib/backend/rerun.ts';

function gatedTask() {
  const gates: (() => void)[] = [];
  let runs = 0;
  const task = rerunning(async () => {
    runs++;
    await new Promise<void>((resolve) => gates.push(resolve));
  });
  const settle = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { task, settle, runs: () => runs, waiting: () => gates.length };
}

test('rerun :: calls during a run give exactly one more run', async () => {
  const { task, settle, runs } = gatedTask();
  task();
  task();
  task();
  task();
  assert.is(runs(), 1, 'no second run alongside the first');
  await settle();
  assert.is(runs(), 2);
});

test('rerun :: a call with nothing running starts a run at once', async () => {
  const { task, settle, runs } = gatedTask();
  task();
  await settle();
  assert.is(runs(), 1, 'no rerun without a call during the run');
  task();
  assert.is(runs(), 2);
  await settle();
  assert.is(runs(), 2);
});

test('rerun :: a call during the extra run gives one more', async () => {
  const gates: (() => void)[] = [];
  let runs = 0;
  const task = rerunning(async () => {
    runs++;
    await new Promise<void>((resolve) => gates.push(resolve));
  });
  const release = async () => {
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  task();
  task();
  await release();
  assert.is(runs, 2, 'the extra run');
  task();
  await release();
  assert.is(runs, 3, 'one more for the call during the extra run');
  await release();
  assert.is(runs, 3);
  assert.is(gates.length, 0);
});

test.run();
