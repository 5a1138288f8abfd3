import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { throttledReport } from '../../lib/main/throttled-report.ts';

test('throttled report :: the first failure is reported, then one per interval with the count not reported', () => {
  let now = 1_000;
  const reported: [string, number][] = [];
  const fail = throttledReport<string>((error, notReported) => void reported.push([error, notReported]), 60_000, () => now);
  fail('a');
  now += 10;
  fail('b');
  fail('c');
  now += 59_990;
  fail('d');
  now += 1;
  fail('e');
  now += 120_000;
  fail('f');
  assert.equal(reported, [
    ['a', 0],
    ['d', 2],
    ['f', 1],
  ]);
});

test.run();
