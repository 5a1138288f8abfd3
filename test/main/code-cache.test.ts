import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { CodeCache, cacheFileName } from '../../lib/main/code-cache.ts';
import { tempDir } from '../helpers/service.ts';

function scratch(): { dir: string; bundle: string } {
  const dir = tempDir('agent-code-cache-');
  const bundle = path.join(dir, 'backend.cjs');
  fs.writeFileSync(bundle, 'module.exports = 1;\n');
  return { dir, bundle };
}

const shared = (bytes: number[]) => {
  const buffer = new SharedArrayBuffer(bytes.length);
  new Uint8Array(buffer).set(bytes);
  return buffer;
};

test('code cache :: none at first: the worker is told where to keep the one it makes', async () => {
  const { dir, bundle } = scratch();
  const cache = new CodeCache(bundle, path.join(dir, 'cache'));
  await cache.loaded;
  const given = cache.forWorker();
  assert.is(given.bundle, bundle);
  assert.is(given.cache, null);
  assert.is(given.cacheFile, path.join(dir, 'cache', cacheFileName(bundle, fs.statSync(bundle))));
  assert.is(given.make, true);
});

test('code cache :: the first cache offered is kept and shared, not copied', async () => {
  const { dir, bundle } = scratch();
  const cache = new CodeCache(bundle, dir);
  await cache.loaded;
  const first = shared([1, 2, 3]);
  cache.offer(first);
  cache.offer(shared([4]));
  assert.is(cache.forWorker().cache, first, 'the same SharedArrayBuffer for every worker');
  // A worker given it makes (and writes) one only if V8 refuses it: its loader decides.
  assert.is(cache.forWorker().cacheFile, path.join(dir, cacheFileName(bundle, fs.statSync(bundle))));
  assert.is(cache.forWorker().make, true);
  assert.is(cache.bytes, 3);
});

test('code cache :: a refused cache is dropped, and only that one', async () => {
  const { dir, bundle } = scratch();
  const cache = new CodeCache(bundle, dir);
  await cache.loaded;
  const old = shared([1]);
  cache.offer(old);
  cache.refused(null);
  assert.is(cache.forWorker().cache, old, 'a worker that was given none refused nothing');
  cache.refused(old);
  assert.is(cache.forWorker().cache, null);
  const fresh = shared([2]);
  cache.offer(fresh);
  cache.refused(old);
  assert.is(cache.forWorker().cache, fresh, 'a late refusal of the old cache leaves the new one');
});

test('code cache :: read from the state directory at start; caches of other bundles are removed', async () => {
  const { dir, bundle } = scratch();
  const name = cacheFileName(bundle, fs.statSync(bundle));
  fs.writeFileSync(path.join(dir, name), Buffer.from([7, 8, 9]));
  const cache = new CodeCache(bundle, dir);
  await cache.loaded;
  assert.equal([...new Uint8Array(cache.forWorker().cache!)], [7, 8, 9]);

  fs.writeFileSync(bundle, 'module.exports = 22;\n');
  fs.writeFileSync(path.join(dir, 'backend-0000000000000000.bin'), 'old');
  const rebuilt = new CodeCache(bundle, dir);
  await rebuilt.loaded;
  assert.is(rebuilt.forWorker().cache, null, 'a changed bundle does not take the old cache');
  assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.bin')), [], 'old caches are gone');
});

test('code cache :: without a state directory it lives in memory', async () => {
  const { bundle } = scratch();
  const cache = new CodeCache(bundle, null);
  await cache.loaded;
  assert.is(cache.forWorker().cacheFile, null);
});

test.run();
