import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { currentThreadId } from '../../lib/shared/priority.ts';

// Field 19 of /proc/<pid>/task/<tid>/stat is the nice value.
function niceOf(tid: number): number {
  const stat = fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

test('priority :: the main thread is its process', () => {
  assert.is(currentThreadId(), process.pid);
});

test('priority :: a worker lowers its own thread only; raising it back is refused quietly', async () => {
  const worker = new Worker(new URL('../../workers/bootstrap.mjs', import.meta.url), { workerData: { entry: new URL('../fixtures/workers/lowers-priority.ts', import.meta.url).href } });
  const { first, again } = await new Promise<any>((resolve) => worker.once('message', resolve));
  assert.equal(first.applied, true);
  assert.is(first.nice, 7);
  assert.is(niceOf(first.tid), 7, 'the worker thread runs at nice 7');
  assert.is(niceOf(process.pid), 0, 'the main thread keeps its priority');
  assert.equal(again, { applied: true, tid: first.tid, nice: 7 }, 'never raised back');
  await worker.terminate();
});

test.run();
