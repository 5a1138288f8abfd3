// The stderr sweep's rate of summarized lines: over whole summary intervals, wherever the ticks
// fall in the phase.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summaryRate } from '../../benchmarks/stderr.ts';
import type { Summary } from '../../benchmarks/lib/service.ts';

const s = (atMs: number, count: number, kind: Summary['kind'] = 'suppressed'): Summary => ({ atMs, kind, count });

test('summary rate :: two or three ticks in a 2 s phase give the same rate', () => {
  // 1,000 lines a second, summarized every second; the phase runs from 0 to 2,050 ms.
  assert.is(summaryRate([s(-500, 1000), s(500, 1000), s(1500, 1000), s(2500, 1000)], 'suppressed', 0, 2050), 1000);
  assert.is(summaryRate([s(20, 1000), s(1020, 1000), s(2020, 1000)], 'suppressed', 0, 2050), 1000);
});

test('summary rate :: a tick\'s several repeated lines count as one tick; other kinds are left out', () => {
  const summaries = [s(100, 300, 'repeated'), s(102, 200, 'repeated'), s(101, 7), s(1100, 600, 'repeated'), s(1101, 400, 'repeated'), s(1102, 9)];
  assert.is(summaryRate(summaries, 'repeated', 0, 2000), 1000);
});

test('summary rate :: null with fewer than two ticks in the phase', () => {
  assert.is(summaryRate([s(500, 10)], 'suppressed', 0, 2000), null);
  assert.is(summaryRate([s(500, 10, 'repeated'), s(1500, 10, 'repeated')], 'suppressed', 0, 2000), null);
});

test.run();
