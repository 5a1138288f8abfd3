import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paginate } from '../../lib/hub/pagination.ts';

const items = Array.from({ length: 250 }, (_, i) => i);

test('pagination :: pages of 100 with opaque cursors until the end', () => {
  const first = paginate(items, undefined);
  assert.is(first.page.length, 100);
  assert.is(first.page[0], 0);
  const second = paginate(items, first.nextCursor);
  assert.is(second.page[0], 100);
  const third = paginate(items, second.nextCursor);
  assert.equal([third.page.length, third.page[0], third.nextCursor], [50, 200, undefined]);
});

test('pagination :: a short list has no cursor; an empty one is an empty page', () => {
  assert.equal(paginate([1, 2], undefined), { page: [1, 2] });
  assert.equal(paginate([], undefined), { page: [] });
});

test('pagination :: a bad cursor is an InvalidParams error naming it', () => {
  for (const cursor of ['garbage!', Buffer.from('-1').toString('base64url'), Buffer.from('999').toString('base64url')]) {
    assert.throws(() => paginate(items, cursor), (e: Error & { code?: number }) => e.code === -32602 && e.message.includes('Invalid cursor'));
  }
});

test.run();
