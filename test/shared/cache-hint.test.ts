// Cache hints of aggregated lists: the minimum ttlMs, public only if every source and the view allow.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { aggregateHint, hintOf, NO_CACHE } from '../../lib/shared/cache-hint.ts';

const H = suite('cache hints');

H('a result\'s own hint is read when valid', () => {
  assert.equal(hintOf({ ttlMs: 5000, cacheScope: 'public', tools: [] }), { ttlMs: 5000, cacheScope: 'public' });
  assert.equal(hintOf({ ttlMs: 10 }), { ttlMs: 10 });
  assert.is(hintOf({ ttlMs: -1, cacheScope: 'everyone' }), undefined);
  assert.is(hintOf({ ttlMs: 1.5 }), undefined);
  assert.is(hintOf({}), undefined);
});

H('no source: not cacheable', () => {
  assert.equal(aggregateHint([], true), NO_CACHE);
});

H('the shortest ttl wins; a source without a hint counts as 0', () => {
  assert.equal(aggregateHint([{ ttlMs: 5000, cacheScope: 'public' }, { ttlMs: 2000, cacheScope: 'public' }], true), { ttlMs: 2000, cacheScope: 'public' });
  assert.equal(aggregateHint([{ ttlMs: 5000, cacheScope: 'public' }, undefined], true), { ttlMs: 0, cacheScope: 'private' });
});

H('public only when every source said public and the view is shared', () => {
  assert.equal(aggregateHint([{ ttlMs: 5000, cacheScope: 'public' }], false), { ttlMs: 5000, cacheScope: 'private' });
  assert.equal(aggregateHint([{ ttlMs: 5000, cacheScope: 'public' }, { ttlMs: 9000 }], true), { ttlMs: 5000, cacheScope: 'private' });
});

H.run();
