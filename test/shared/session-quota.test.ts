// --max-sessions over every hub: one shared array of per-hub counts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SessionQuota, sessionSlots } from '../../lib/shared/session-quota.ts';

test('session quota :: the cap holds over the hubs together, and a place given back is free for any hub', () => {
  const slots = sessionSlots(2);
  const hub0 = new SessionQuota(slots, 0, 3);
  const hub1 = new SessionQuota(slots, 1, 3);
  assert.equal([hub0.take(), hub1.take(), hub0.take()], [true, true, true]);
  assert.equal([hub1.take(), hub0.take()], [false, false], 'full, on either hub');
  assert.is(hub0.total(), 3, 'a refusal takes nothing');
  hub0.release();
  assert.is(hub1.take(), true, "hub 0's place taken by hub 1");
  assert.is(hub1.total(), 3);
});

test("session quota :: a hub's next worker starts its count at zero: the dead one's sessions are gone", () => {
  const slots = sessionSlots(2);
  const first = new SessionQuota(slots, 0, 2);
  const other = new SessionQuota(slots, 1, 2);
  assert.equal([first.take(), first.take(), other.take()], [true, true, false]);
  const restarted = new SessionQuota(slots, 0, 2);
  assert.is(restarted.total(), 0);
  assert.equal([other.take(), restarted.take(), restarted.take()], [true, true, false]);
});

test('session quota :: the quota crosses to a worker and counts there', async () => {
  const { Worker } = await import('node:worker_threads');
  const slots = sessionSlots(2);
  const here = new SessionQuota(slots, 0, 2);
  assert.ok(here.take());
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const counts = new Int32Array(workerData.slots);
    Atomics.add(counts, 1, 1);
    parentPort.postMessage('taken');
  `;
  const worker = new Worker(code, { eval: true, workerData: { slots } });
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  assert.is(here.total(), 2, "the worker's session counts here");
  assert.not.ok(here.take());
});

test.run();
