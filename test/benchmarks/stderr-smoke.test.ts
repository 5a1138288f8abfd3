// A few-seconds smoke run of the stderr sweep (benchmarks/stderr.ts): two tiny cells, so the
// sweep cannot rot. It asserts only that the figures are sane numbers, never a performance target.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LIMIT_SETS, runStderrSweep } from '../../benchmarks/stderr.ts';

test('the stderr sweep produces sane figures for a flood cell and the baseline', async () => {
  const result = await runStderrSweep({
    rates: [2],
    ratios: [1],
    lineBytes: 120,
    limitSets: [LIMIT_SETS.lpw100!],
    longLines: { lineBytes: 4096, rates: [], ratio: 1, limitSets: [] },
    baseline: true,
    phaseSeconds: 0.6,
    settleMs: 0,
    probeRate: 40,
    entry: 'source',
    log: () => {},
  });
  assert.is(result.cells.length, 2);
  const [baseline, flood] = result.cells;
  assert.is(baseline!.group, 'baseline');
  assert.is(flood!.limits.linesPerWindow, 100, 'the limit set reached the service as a flag');
  assert.is(flood!.workerThreads, 1, 'the flooder worker is found by its nice value');
  for (const [name, value] of Object.entries({ flooderMBps: flood!.flooderMBps, flooderLinesPerSec: flood!.flooderLinesPerSec, workerCpuPct: flood!.workerCpuPct, healthP99: flood!.health.p99, baselineHealthP99: baseline!.health.p99, eldSamples: flood!.eld.samples })) {
    assert.ok(Number.isFinite(value) && value > 0, `${name} = ${value}`);
  }
  assert.ok(flood!.logBytesPerSec >= 0 && flood!.suppressedPerSec >= 0);
  assert.is(flood!.health.ok, flood!.health.sent, 'every probe answered 2xx');
  assert.ok(result.table.includes('linesPerWindow 100'));
  assert.equal(result.leftovers, [], 'no process left behind');
  for (const stop of result.stops) assert.equal(stop.leftovers, [], 'no backend outlived its service');
});

test.run();
