// "Tell the first, count the rest", on a clock the test moves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WindowedCounter } from '../../lib/backend/windowed-counter.ts';

function counter(windowMs = 1_000) {
  const summaries: number[] = [];
  const clock = { now: 5_000 };
  const c = new WindowedCounter((count) => summaries.push(count), windowMs, () => clock.now);
  return { c, summaries, clock };
}

test('windowed counter :: the first is told, the rest of its window counted and summed up once', () => {
  const t = counter();
  assert.is(t.c.take(), 'full');
  assert.equal([t.c.take(), t.c.take(), t.c.take()], ['counted', 'counted', 'counted']);
  t.c.flush();
  assert.equal(t.summaries, [3]);
  t.c.flush();
  assert.equal(t.summaries, [3], 'nothing more to sum up');
});

test('windowed counter :: while events keep coming, each window ends with one summary and none is told in full', () => {
  const t = counter();
  t.c.take();
  t.c.take();
  t.clock.now += 1_000;
  t.c.flush(); // the window's end
  t.clock.now += 500;
  assert.is(t.c.take(), 'counted', 'the next window is open: counted');
  t.clock.now += 500;
  t.c.flush();
  assert.equal(t.summaries, [1, 1]);
});

test('windowed counter :: after a quiet window the next one is told in full again', () => {
  const t = counter();
  t.c.take();
  t.clock.now += 1_001;
  assert.is(t.c.take(), 'full');
  assert.equal(t.summaries, []);
});

test('windowed counter :: the summary comes by itself when the window ends', async () => {
  const t = counter(30);
  const real = new WindowedCounter((count) => t.summaries.push(count), 30);
  real.take();
  real.take();
  real.take();
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(t.summaries, [2]);
});

test.run();
