// The Node options a bundle's worker gets: the service's own, tsx's loader left out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withoutTsx } from '../../lib/shared/worker-entry.ts';

test('worker entry :: withoutTsx drops tsx in every spelling and keeps every other option', () => {
  assert.equal(withoutTsx(['--import', 'tsx']), []);
  assert.equal(withoutTsx(['--import=tsx', '--require', 'tsx/cjs', '-r', 'tsx', '--loader', 'tsx/esm', '--experimental-loader=tsx']), []);
  assert.equal(
    withoutTsx(['--import', './preload.mjs', '--import', 'tsx', '--max-old-space-size=512', '--import=tsx-like', '--require', 'tsxx']),
    ['--import', './preload.mjs', '--max-old-space-size=512', '--import=tsx-like', '--require', 'tsxx'],
  );
  assert.equal(withoutTsx(['--expose-gc', '--import']), ['--expose-gc', '--import'], 'a flag without its value is kept as it is');
});

test.run();
