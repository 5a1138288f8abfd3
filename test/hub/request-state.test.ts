import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { createStateCodec } from '../../lib/hub/request-state.ts';

const key = randomBytes(32);
let now = 1_000_000;
const codec = createStateCodec(key, 'service-a', 60_000, () => now);

test('request state :: a minted state verifies to its payload', () => {
  assert.equal(codec.verify(codec.mint({ k: 'park', b: 'x', w: 3, p: 7 })), { k: 'park', b: 'x', w: 3, p: 7 });
  assert.equal(codec.verify(codec.mint({ k: 'pass', b: 'y', s: 'inner state' })), { k: 'pass', b: 'y', s: 'inner state' });
});

test('request state :: forged, altered, foreign, expired or malformed states are refused', () => {
  const state = codec.mint({ k: 'park', b: 'x', w: 3, p: 7 });
  const [body, mac] = state.split('.');
  const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), b: 'other' })).toString('base64url');
  const refusals: [string, unknown, RegExp][] = [
    ['altered payload', `${altered}.${mac}`, /signature/],
    ['made up', 'eyJrIjoicGFzcyJ9.AAAA', /signature/],
    ['no signature', body, /signature/],
    ['not a string', 42, /not a string/],
    ['another service', createStateCodec(key, 'service-b', 60_000, () => now).mint({ k: 'pass', b: 'x' }), /restarted/],
    ['another key', createStateCodec(randomBytes(32), 'service-a', 60_000, () => now).mint({ k: 'pass', b: 'x' }), /signature/],
  ];
  for (const [name, input, reason] of refusals) assert.throws(() => codec.verify(input), reason, name);
  now += 60_001;
  assert.throws(() => codec.verify(state), /expired/);
});

test.run();
