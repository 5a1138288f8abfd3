import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_STDERR_LIMITS, resolveStderrLimits, type StderrLimits } from '../../lib/shared/stderr-limits.ts';

type Layer = Partial<StderrLimits> | undefined;

// Effective limits: the server's value (serverDefaults already merged in), else the service flag, else the spec's.
const cases: Array<[title: string, layers: Layer[], expected: Partial<StderrLimits>]> = [
  ['no layers: the spec defaults', [], {}],
  ['empty and missing layers: the spec defaults', [undefined, {}], {}],
  ['one layer sets some keys, the rest stay default', [{ linesPerWindow: 100, lineBytes: 1024 }], { linesPerWindow: 100, lineBytes: 1024 }],
  ['the first layer that sets a key wins, key by key', [{ linesPerWindow: 5 }, { linesPerWindow: 100, windowSeconds: 60 }], { linesPerWindow: 5, windowSeconds: 60 }],
  ['a missing first layer falls through', [undefined, { queueHighWaterBytes: 262_144 }], { queueHighWaterBytes: 262_144 }],
  ['an undefined value falls through', [{ summaryIntervalSeconds: undefined }, { summaryIntervalSeconds: 1 }], { summaryIntervalSeconds: 1 }],
];

for (const [title, layers, expected] of cases) {
  test(`stderr-limits resolve :: ${title}`, () => assert.equal(resolveStderrLimits(...layers), { ...DEFAULT_STDERR_LIMITS, ...expected }));
}

test('stderr-limits resolve :: the spec defaults (service.md, Limits)', () => {
  assert.equal(DEFAULT_STDERR_LIMITS, { lineBytes: 8192, linesPerWindow: 20, windowSeconds: 10, summaryIntervalSeconds: 5, queueHighWaterBytes: 1_048_576 });
});

test('stderr-limits resolve :: returns a fresh object', () => {
  const limits = resolveStderrLimits();
  limits.lineBytes = 1;
  assert.is(DEFAULT_STDERR_LIMITS.lineBytes, 8192);
});

test.run();
