import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { InvalidCidrError, clientKey, createHealthRateLimiter, parseExemptList, type RateDecision } from '../../../lib/main/health/rate-limit.ts';

// ---------------------------------------------------------------------------------------------
// clientKey
// ---------------------------------------------------------------------------------------------

const keyCases: Array<[name: string, address: string, expected: string]> = [
  ['IPv4 is its own key', '192.0.2.1', '192.0.2.1'],
  ['another IPv4', '10.20.30.40', '10.20.30.40'],
  ['IPv4-mapped IPv6 counts as IPv4', '::ffff:192.0.2.1', '192.0.2.1'],
  ['IPv4-mapped IPv6, upper case', '::FFFF:192.0.2.1', '192.0.2.1'],
  ['a non-address is passed through', 'unknown', 'unknown'],
];

function runKey(address: string, expected: string): void {
  assert.is(clientKey(address), expected);
}

for (const [name, address, expected] of keyCases) {
  test(`clientKey :: ${name}`, () => runKey(address, expected));
}

// Pairs of addresses that must (or must not) share a bucket.
const sameKeyCases: Array<[name: string, a: string, b: string, same: boolean]> = [
  ['IPv4 and its mapped IPv6 form', '198.51.100.7', '::ffff:198.51.100.7', true],
  ['two IPv4 addresses in the same /24 differ', '198.51.100.7', '198.51.100.8', false],
  ['same /64', '2001:db8:1:2345::1', '2001:db8:1:2345::2', true],
  ['same /56, different /64 (low byte of the 4th group)', '2001:db8:1:2300::1', '2001:db8:1:23ff:ffff:ffff:ffff:ffff', true],
  ['same /56, full and compressed notation', '2001:db8:1:2345:0:0:0:1', '2001:db8:1:2345::9', true],
  ['same /56, upper and lower case hex', '2001:DB8:1:AB00::1', '2001:db8:1:abcd::1', true],
  ['same /56, zone id ignored', 'fe80::1%eth0', 'fe80::2', true],
  ['same /56, leading zeros written out', '2001:0db8:0001:2345::1', '2001:db8:1:2345::2', true],
  ['same /56, zero groups compressed or not', '2001:db8:0:0::1', '2001:db8::ff', true],
  ['same /56, embedded IPv4 tail counts as two groups', '1::2:3:4:5:6.7.8.9', '1:0:2:3::1', true],
  ['same /56, NAT64 address and plain IPv6', '64:ff9b::192.0.2.1', '64:ff9b::1', true],
  ['different /56: high byte of the 4th group', '2001:db8:1:2300::1', '2001:db8:1:2400::1', false],
  ['different /56: third group', '2001:db8:1::1', '2001:db8:2::1', false],
  ['different /56: first group', '2001:db8::1', '2002:db8::1', false],
  ['loopback ::1 vs IPv4 loopback', '::1', '127.0.0.1', false],
];

function runSameKey(a: string, b: string, same: boolean): void {
  const [ka, kb] = [clientKey(a), clientKey(b)];
  if (same) assert.is(ka, kb, `${a} and ${b} should share a key`);
  else assert.is.not(ka, kb, `${a} and ${b} should not share a key`);
}

for (const [name, a, b, same] of sameKeyCases) {
  test(`clientKey :: ${name} -> ${same ? 'same' : 'different'}`, () => runSameKey(a, b, same));
}

test('clientKey :: an IPv6 key never equals a plain address of the prefix', () => {
  const key = clientKey('2001:db8:1:2345::1');
  assert.is.not(key, '2001:db8:1:2345::1');
  assert.ok(key.endsWith('/56'), key);
});

// ---------------------------------------------------------------------------------------------
// parseExemptList
// ---------------------------------------------------------------------------------------------

type ExemptCase = [name: string, entries: string[], inside: string[], outside: string[]];

const exemptCases: ExemptCase[] = [
  ['IPv4 CIDR', ['10.0.0.0/8'], ['10.0.0.1', '10.255.255.255'], ['11.0.0.1', '192.168.0.1']],
  ['IPv4 single address', ['192.168.1.10'], ['192.168.1.10'], ['192.168.1.11', '192.168.1.9']],
  ['IPv4 /32 and /0', ['203.0.113.5/32'], ['203.0.113.5'], ['203.0.113.6']],
  ['IPv4 /0 matches every IPv4', ['0.0.0.0/0'], ['1.2.3.4', '255.255.255.255'], ['::1']],
  ['IPv6 CIDR', ['fd00::/8'], ['fd00::1', 'fdff:ffff::1'], ['fe80::1', '2001:db8::1']],
  ['IPv6 single address', ['::1'], ['::1'], ['::2']],
  ['mixed list with spaces and empty entries', [' 10.0.0.0/8 ', '', '  ', '::1'], ['10.1.1.1', '::1'], ['172.16.0.1', '::2']],
  ['empty list exempts nothing', [], [], ['10.0.0.1', '::1']],
];

function family(address: string): 'ipv4' | 'ipv6' {
  return net.isIPv4(address) ? 'ipv4' : 'ipv6';
}

function runExempt(entries: string[], expected: { inside: string[]; outside: string[] }): void {
  const list = parseExemptList(entries);
  for (const a of expected.inside) assert.ok(list.check(a, family(a)), `${a} should be exempt`);
  for (const a of expected.outside) assert.not.ok(list.check(a, family(a)), `${a} should not be exempt`);
}

for (const [name, entries, inside, outside] of exemptCases) {
  test(`parseExemptList :: ${name}`, () => runExempt(entries, { inside, outside }));
}

const invalidEntries: Array<[name: string, entry: string]> = [
  ['host name', 'localhost'],
  ['garbage', 'not-an-ip'],
  ['IPv4 octet out of range', '300.1.1.1'],
  ['IPv4 prefix too long', '10.0.0.0/33'],
  ['IPv6 prefix too long', 'fd00::/129'],
  ['negative prefix', '10.0.0.0/-1'],
  ['non-numeric prefix', '10.0.0.0/abc'],
  ['fractional prefix', '10.0.0.0/8.5'],
  ['empty prefix', '10.0.0.0/'],
  ['space inside prefix', '10.0.0.0/ 8'],
  ['hex prefix', '10.0.0.0/0x8'],
  ['no address', '/8'],
  ['two prefixes', '10.0.0.0/8/9'],
  ['IPv4 with too few octets', '10.0.0/8'],
];

function runInvalid(entry: string): void {
  let caught: unknown;
  try {
    parseExemptList(['10.0.0.0/8', entry]);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof InvalidCidrError, `${JSON.stringify(entry)} should throw InvalidCidrError`);
  assert.ok(caught instanceof Error);
  assert.ok((caught as Error).message.includes(JSON.stringify(entry.trim())), (caught as Error).message);
}

for (const [name, entry] of invalidEntries) {
  test(`parseExemptList :: invalid ${name} (${entry}) throws InvalidCidrError`, () => runInvalid(entry));
}

test('createHealthRateLimiter :: an invalid exempt entry fails at creation', () => {
  assert.throws(() => createHealthRateLimiter({ limit: 3, windowSeconds: 60, exempt: ['nope'] }), (e: unknown) => e instanceof InvalidCidrError);
});

// ---------------------------------------------------------------------------------------------
// createHealthRateLimiter
// ---------------------------------------------------------------------------------------------

async function checks(limiter: ReturnType<typeof createHealthRateLimiter>, address: string | undefined, n: number): Promise<RateDecision[]> {
  const out: RateDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.check(address));
  return out;
}

function headersOf(d: RateDecision): Record<string, string> {
  assert.ok(d.kind !== 'unlimited', 'expected rate-limit headers');
  const flat = (d as Extract<RateDecision, { headers: unknown }>).headers;
  assert.is(flat.length % 2, 0, 'a flat [name, value, ...] list');
  return Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]));
}

test('createHealthRateLimiter :: limit 0 disables limiting', async () => {
  const limiter = createHealthRateLimiter({ limit: 0, windowSeconds: 60, exempt: [] });
  for (const d of await checks(limiter, '192.0.2.1', 50)) assert.equal(d, { kind: 'unlimited' });
});

const policyCases: Array<[limit: number, windowSeconds: number, policy: string]> = [
  [3, 60, '3;w=60'],
  [200, 300, '200;w=300'],
  [1, 1, '1;w=1'],
];

for (const [limit, windowSeconds, policy] of policyCases) {
  test(`createHealthRateLimiter :: headers for limit ${limit}, window ${windowSeconds}s`, async () => {
    const limiter = createHealthRateLimiter({ limit, windowSeconds, exempt: [] });
    const d = await limiter.check('192.0.2.1');
    assert.is(d.kind, 'allowed');
    const h = headersOf(d);
    assert.equal(Object.keys(h).sort(), ['RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'RateLimit-Reset']);
    assert.is(h['RateLimit-Policy'], policy);
    assert.is(h['RateLimit-Limit'], String(limit));
    assert.is(h['RateLimit-Remaining'], String(limit - 1));
    const reset = Number(h['RateLimit-Reset']);
    assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= windowSeconds, `RateLimit-Reset ${h['RateLimit-Reset']}`);
  });
}

test('createHealthRateLimiter :: Remaining counts down, then over quota is limited', async () => {
  const limiter = createHealthRateLimiter({ limit: 3, windowSeconds: 60, exempt: [] });
  const ds = await checks(limiter, '192.0.2.1', 5);
  assert.equal(
    ds.map((d) => d.kind),
    ['allowed', 'allowed', 'allowed', 'limited', 'limited'],
  );
  assert.equal(
    ds.map((d) => headersOf(d)['RateLimit-Remaining']),
    ['2', '1', '0', '0', '0'],
  );
  for (const d of ds.slice(3)) {
    assert.is(d.kind, 'limited');
    const retry = (d as Extract<RateDecision, { kind: 'limited' }>).retryAfterSeconds;
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `retryAfterSeconds ${retry}`);
    assert.is(headersOf(d)['RateLimit-Policy'], '3;w=60');
    assert.is(headersOf(d)['RateLimit-Limit'], '3');
  }
});

test('createHealthRateLimiter :: clients have separate quotas', async () => {
  const limiter = createHealthRateLimiter({ limit: 2, windowSeconds: 60, exempt: [] });
  assert.equal((await checks(limiter, '192.0.2.1', 3)).map((d) => d.kind), ['allowed', 'allowed', 'limited']);
  assert.is((await limiter.check('192.0.2.2')).kind, 'allowed');
  assert.is((await limiter.check('2001:db8:1:2300::1')).kind, 'allowed');
});

test('createHealthRateLimiter :: IPv4 and its mapped form share one quota', async () => {
  const limiter = createHealthRateLimiter({ limit: 2, windowSeconds: 60, exempt: [] });
  assert.is((await limiter.check('192.0.2.9')).kind, 'allowed');
  assert.is((await limiter.check('::ffff:192.0.2.9')).kind, 'allowed');
  assert.is((await limiter.check('192.0.2.9')).kind, 'limited');
});

test('createHealthRateLimiter :: a /56 shares one quota, the next /56 does not', async () => {
  const limiter = createHealthRateLimiter({ limit: 2, windowSeconds: 60, exempt: [] });
  assert.is((await limiter.check('2001:db8:1:2301::1')).kind, 'allowed');
  assert.is((await limiter.check('2001:db8:1:23fe::2')).kind, 'allowed');
  assert.is((await limiter.check('2001:db8:1:2300::3')).kind, 'limited');
  assert.is((await limiter.check('2001:db8:1:2400::1')).kind, 'allowed');
});

test('createHealthRateLimiter :: a missing address is still limited', async () => {
  const limiter = createHealthRateLimiter({ limit: 1, windowSeconds: 60, exempt: [] });
  assert.equal((await checks(limiter, undefined, 2)).map((d) => d.kind), ['allowed', 'limited']);
});

const exemptLimiterCases: Array<[name: string, exempt: string[], address: string]> = [
  ['IPv4 in an exempt CIDR', ['10.0.0.0/8'], '10.1.2.3'],
  ['IPv4-mapped form of an exempt IPv4', ['10.0.0.0/8'], '::ffff:10.1.2.3'],
  ['exempt single IPv4', ['127.0.0.1'], '127.0.0.1'],
  ['exempt IPv6 CIDR', ['fd00::/8'], 'fd12:3456::1'],
  ['exempt IPv6 loopback', ['::1'], '::1'],
];

for (const [name, exempt, address] of exemptLimiterCases) {
  test(`createHealthRateLimiter :: ${name} is never limited`, async () => {
    const limiter = createHealthRateLimiter({ limit: 1, windowSeconds: 60, exempt });
    const headers = ['RateLimit-Policy', '1;w=60', 'RateLimit-Limit', '1', 'RateLimit-Remaining', '1', 'RateLimit-Reset', '0'];
    for (const d of await checks(limiter, address, 10)) assert.equal(d, { kind: 'exempt', headers });
  });
}

test('createHealthRateLimiter :: exemption does not leak to other clients', async () => {
  const limiter = createHealthRateLimiter({ limit: 1, windowSeconds: 60, exempt: ['10.0.0.0/8'] });
  assert.equal((await checks(limiter, '11.0.0.1', 2)).map((d) => d.kind), ['allowed', 'limited']);
  assert.is((await limiter.check('10.0.0.1')).kind, 'exempt');
});

test.run();
