import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_NESTING, nestsDeeperThan } from '../../lib/shared/nesting.ts';

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

test('nesting :: counts objects and arrays, not leaves; a deep value is found without recursion', () => {
  const cases: [unknown, number, boolean][] = [
    ['text', 0, false],
    [null, 0, false],
    [{}, 1, false],
    [{}, 0, true],
    [{ a: 1, b: [1, 2] }, 2, false],
    [{ a: 1, b: [1, { c: 'x' }] }, 2, true],
    [nested(MAX_NESTING), MAX_NESTING, false],
    [nested(MAX_NESTING + 1), MAX_NESTING, true],
    [nested(100_000), MAX_NESTING, true],
    [{ wide: Array.from({ length: 10_000 }, (_, i) => ({ i })) }, 3, false],
  ];
  for (const [i, [value, limit, deeper]] of cases.entries()) assert.is(nestsDeeperThan(value, limit), deeper, `case ${i} at ${limit}`);
});

test.run();
