// The health-route quota of decisions §5: one bucket per client IP (IPv6 per /56), shared by
// every health route, with trusted probe sources exempt.
import net from 'node:net';
// The memory limiter alone (types/rate-limiter-flexible-parts.d.ts): the package entry loads every store.
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import { AgentError, Code } from '../../shared/errors.ts';

export type RateLimitOptions = { limit: number; windowSeconds: number; exempt: string[] };

/** `headers`: the RateLimit-* headers as node's flat `[name, value, ...]` list, ready to write. */
export type RateDecision =
  | { kind: 'unlimited' }
  /** A trusted probe source: never counted, but told the policy like everyone (decisions §5). */
  | { kind: 'exempt'; headers: string[] }
  | { kind: 'allowed'; headers: string[] }
  | { kind: 'limited'; headers: string[]; retryAfterSeconds: number };

export class InvalidCidrError extends AgentError {
  override readonly name = 'InvalidCidrError';
  constructor(message: string) {
    super(Code.invalid_cidr, message);
  }
}

// Parses `10.0.0.0/8,::1,fd00::/8` into a BlockList; a bare address is a single host.
export function parseExemptList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address = '', prefixText, ...extra] = entry.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!family || extra.length > 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
      throw new InvalidCidrError(`expected an IP address or CIDR such as 10.0.0.0/8 or fd00::/8, got ${JSON.stringify(entry)}`);
    }
    list.addSubnet(address, prefix, family);
  }
  return list;
}

// IPv4-mapped IPv6 counts as IPv4; other IPv6 addresses are keyed by their first 56 bits.
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!net.isIPv6(address)) return address;
  const groups = expandIPv6(address);
  // 56 bits = three full 16-bit groups and the high byte of the fourth.
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(':')}:${((groups[3] ?? 0) & 0xff00).toString(16)}::/56`;
}

// The eight 16-bit groups as numbers, so `0db8`, `DB8` and `db8` give the same key.
function expandIPv6(address: string): number[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const split = (part: string) => part.split(':').flatMap((g) => {
    if (!g.includes('.')) return [g];
    const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number); // an embedded IPv4 tail is two groups
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  });
  const left = head ? split(head) : [];
  const right = tail !== undefined && tail !== '' ? split(tail) : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

const UNLIMITED: RateDecision = { kind: 'unlimited' };

export function createHealthRateLimiter(options: RateLimitOptions) {
  const exempt = parseExemptList(options.exempt);
  // The decision type says a check may be answered at once (unlimited, exempt) or later (counted).
  if (options.limit === 0) return { check: (_address: string | undefined): RateDecision | Promise<RateDecision> => UNLIMITED };
  const limiter = new RateLimiterMemory({ points: options.limit, duration: options.windowSeconds });
  const policy = `${options.limit};w=${options.windowSeconds}`;
  const headers = (remaining: number, resetSeconds: number) => [
    'RateLimit-Policy', policy,
    'RateLimit-Limit', String(options.limit),
    'RateLimit-Remaining', String(remaining),
    'RateLimit-Reset', String(resetSeconds),
  ];
  // An exempt source's headers never change: built once.
  const exemptHeaders = headers(options.limit, 0);
  const headersOf = (res: RateLimiterRes) => headers(Math.max(0, res.remainingPoints), Math.ceil(res.msBeforeNext / 1000));
  return {
    /** Synchronous for an exempt source (no count kept); a promise for a counted one. */
    check(address: string | undefined): RateDecision | Promise<RateDecision> {
      const ip = address ?? 'unknown';
      const plain = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
      if (net.isIP(plain) && exempt.check(plain, net.isIPv4(plain) ? 'ipv4' : 'ipv6')) return { kind: 'exempt', headers: exemptHeaders };
      return counted(plain);
    },
  };

  async function counted(plain: string): Promise<RateDecision> {
    try {
      return { kind: 'allowed', headers: headersOf(await limiter.consume(clientKey(plain))) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return { kind: 'limited', headers: headersOf(rejection), retryAfterSeconds };
    }
  }
}
export type HealthRateLimiter = ReturnType<typeof createHealthRateLimiter>;
