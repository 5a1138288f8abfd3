import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnChild } from '../../lib/backend/child.ts';
import { bounded, commandSpec } from './helpers/runner-harness.ts';

const settledYet = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setImmediate(() => resolve(false)))]);

test('child :: reaped as soon as the process is gone, while a grandchild still holds its pipes and `exited` waits', async () => {
  // The shell exits at once; the sleep it leaves behind keeps stdout and stderr open.
  const child = spawnChild(commandSpec('leaves-a-grandchild', '/bin/sh', ['-c', 'sleep 30 & exit 0']));
  try {
    await bounded(child.reaped, 'reaped');
    assert.is(await settledYet(child.exited), false, 'the pipes are still open');
  } finally {
    await child.kill();
  }
  assert.is(await settledYet(child.exited), true, 'the group is gone, the pipes closed');
});

test.run();
