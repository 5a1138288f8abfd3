import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isUnreachable } from '../../lib/backend/unreachable.ts';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

test('unreachable :: a failed fetch, bare or wrapped, and system codes are; timeouts and protocol answers are not', () => {
  const cases: [unknown, boolean][] = [
    [new TypeError('fetch failed', { cause: refused }), true],
    [new Error('Version negotiation probe failed: fetch failed'), true],
    [new Error('Error POSTing to endpoint', { cause: new TypeError('fetch failed', { cause: refused }) }), true],
    [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), true],
    [Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), true],
    [Object.assign(new Error('Request timed out'), { code: -32001 }), false],
    [Object.assign(new Error('Method not found'), { code: -32601 }), false],
    [Object.assign(new Error('Streamable HTTP error: 500'), { code: 500 }), false],
    ['fetch failed', false],
    [null, false],
  ];
  for (const [error, expected] of cases) assert.is(isUnreachable(error), expected, String((error as Error)?.message ?? error));
});

test('unreachable :: a real refused fetch is', async () => {
  const error = await fetch('http://127.0.0.1:1/').then(() => null, (e: unknown) => e);
  assert.ok(isUnreachable(error));
});

test.run();
