import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { transferable } from '../../lib/shared/transfer.ts';

test('transfer :: a chunk owning its whole buffer goes as it is', () => {
  const chunk = new Uint8Array([1, 2, 3]);
  assert.is(transferable(chunk), chunk);
});

test('transfer :: a view into a pooled buffer is copied, and transferring the copy leaves the pool intact', () => {
  const pool = Buffer.from('hello, world');
  const view = pool.subarray(7, 12);
  const copy = transferable(view);
  assert.is.not(copy.buffer, pool.buffer);
  assert.is(copy.buffer.byteLength, 5, 'the copy owns a buffer of its own size');
  assert.is(Buffer.from(copy).toString(), 'world');
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(copy, [copy.buffer as ArrayBuffer]);
  assert.is(copy.byteLength, 0, 'the copy was transferred (detached here)');
  assert.is(pool.toString(), 'hello, world');
  port1.close();
  port2.close();
});

test('transfer :: a view of the start of a larger buffer is copied', () => {
  const backing = new ArrayBuffer(8);
  const view = new Uint8Array(backing, 0, 4);
  assert.is.not(transferable(view).buffer, backing);
});

test.run();
