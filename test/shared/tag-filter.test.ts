import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterFromQuery, matchesTags, parseTagFilter, TagFilterError } from '../../lib/shared/tag-filter.ts';

const matches: [string, string[], boolean][] = [
  ['a', ['a'], true],
  ['a', ['b'], false],
  ['A', ['a'], true],
  ['a', ['A'], true],
  ['a and b', ['a', 'b'], true],
  ['a and b', ['a'], false],
  ['a or b', ['b'], true],
  ['a or b', [], false],
  ['not a', ['b'], true],
  ['not a', ['a'], false],
  ['NOT a AND b', ['b'], true],
  ['not a and b', ['a', 'b'], false],
  // and binds tighter than or
  ['a or b and c', ['a'], true],
  ['a or b and c', ['b'], false],
  ['(a or b) and c', ['a'], false],
  ['(a or b) and c', ['a', 'c'], true],
  ['not (a or b)', ['c'], true],
  ['not (a or b)', ['b'], false],
  ['not not a', ['a'], true],
  ['team:web and env.prod-1', ['team:web', 'env.prod-1'], true],
  ['  a   and(b)', ['a', 'b'], true],
];
for (const [expr, tags, expected] of matches) {
  test(`tag-filter :: ${JSON.stringify(expr)} on [${tags.join(',')}] is ${expected}`, () => {
    assert.is(matchesTags(parseTagFilter(expr), tags), expected);
  });
}

const errors: [string, string][] = [
  ['', 'expected a tag expression, found nothing at position 1'],
  ['a and', 'expected a tag, "not" or "(", found the end of the expression at position 6'],
  ['a b', 'expected "and", "or" or the end, found "b" at position 3'],
  ['(a or b', 'expected ")" to close the "(" at position 1, found the end of the expression at position 8'],
  ['a)', 'expected "and", "or" or the end, found ")" at position 2'],
  ['a & b', 'unexpected character "&" (tags use letters, digits and _ . : -) at position 3'],
  ['or a', 'expected a tag, "not" or "(", found "or" at position 1'],
  ['not', 'expected a tag, "not" or "(", found the end of the expression at position 4'],
  ['()', 'expected a tag, "not" or "(", found ")" at position 2'],
];
for (const [expr, message] of errors) {
  test(`tag-filter :: ${JSON.stringify(expr)} is rejected`, () => {
    try {
      parseTagFilter(expr);
      assert.unreachable('should throw');
    } catch (error) {
      assert.instance(error, TagFilterError);
      assert.is((error as Error).message, message);
    }
  });
}

test('tag-filter :: ?tags=a,b matches any of the tags', () => {
  const filter = filterFromQuery(new URLSearchParams('tags=a,B'));
  assert.is(matchesTags(filter!, ['b']), true);
  assert.is(matchesTags(filter!, ['c']), false);
});

test('tag-filter :: no parameter means no filter', () => {
  assert.is(filterFromQuery(new URLSearchParams('')), null);
});

test('tag-filter :: both parameters at once are rejected', () => {
  assert.throws(() => filterFromQuery(new URLSearchParams('tags=a&tag-filter=b')), (e: Error) => e.message === 'use either "tags" or "tag-filter", not both', 'no position: the mistake is not in an expression');
});

test('tag-filter :: a bad tag in ?tags names it and its position', () => {
  assert.throws(() => filterFromQuery(new URLSearchParams('tags=ok,bad tag')), /found "bad tag" in "tags" at position 4/);
  assert.throws(() => filterFromQuery(new URLSearchParams('tags=a,,b')), /found "" in "tags" at position 3/);
});

test.run();
