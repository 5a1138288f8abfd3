import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { exposeGcToWorkers } from '../../lib/main/expose-gc.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('expose gc :: a worker started after it has gc, as the service gives its backend workers', async () => {
  exposeGcToWorkers();
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
  const seen = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  assert.is(seen, 'function');
});

test('settled gc :: one full collection per worker, after the delay, however often it is asked for', async () => {
  const calls: number[] = [];
  const had = (globalThis as { gc?: unknown }).gc;
  // The module reads gc when it loads: a counting one stands in for V8's.
  (globalThis as { gc?: unknown }).gc = () => calls.push(Date.now());
  try {
    const { collectOnceSettled } = await import(`../../lib/backend/settled-gc.ts?counting=${Date.now()}`);
    const asked = Date.now();
    const told: unknown[] = [];
    collectOnceSettled(30, (heap: unknown) => told.push(heap));
    collectOnceSettled(0, (heap: unknown) => told.push(heap));
    assert.is(calls.length, 0, 'not at once');
    await sleep(80);
    assert.is(calls.length, 1, 'once');
    assert.ok(calls[0]! - asked >= 25, 'after the delay of the first request');
    assert.is(told.length, 1, 'the first caller is told, once');
    const heap = told[0] as { heapBeforeBytes: number; heapAfterBytes: number };
    assert.ok(heap.heapBeforeBytes > 0 && heap.heapAfterBytes > 0, JSON.stringify(heap));
  } finally {
    (globalThis as { gc?: unknown }).gc = had;
  }
});

test.run();
