import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reconnectDelay, restartDelay } from '../../lib/shared/backoff.ts';

test('backoff :: restart delays are 1x, 2x, 4x, 8x, then 16x for every later attempt', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7, 20].map((n) => restartDelay(n, 1000)), [1000, 2000, 4000, 8000, 16000, 16000, 16000, 16000]);
  assert.equal([1, 2, 5].map((n) => restartDelay(n, 100)), [100, 200, 1600]);
});

test('backoff :: remote reconnect doubles from 1 s and caps at 30 s', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7, 100].map((n) => reconnectDelay(n)), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test.run();
