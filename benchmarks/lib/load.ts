// Load generators: saturation with autocannon, and a bounded fixed-rate prober that behaves like
// a load balancer's health check (one request every 1/rate s, whatever the answers do).
import http from 'node:http';
import autocannon from 'autocannon';
import { latencySummary, sleep } from './stats.ts';

export type Saturation = { rps: number; requests: number; p50: number; p99: number; max: number; non2xx: number; errors: number };

/**
 * As many requests as `connections` keep-alive connections can push in `seconds`. Latencies are
 * collected per response at sub-millisecond precision (autocannon's own histogram is whole ms).
 */
export async function saturate(url: string, seconds: number, connections: number): Promise<Saturation> {
  const latencies: number[] = [];
  const instance = autocannon({ url, connections, duration: seconds, pipelining: 1, timeout: 5 });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => void latencies.push(responseTime));
  const result = await instance;
  const { p50, p99, max } = latencySummary(latencies);
  const requests = result['2xx'] + result.non2xx;
  return { rps: requests / result.duration, requests, p50, p99, max, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

export type FixedRate = { rate: number; sent: number; ok: number; non2xx: number; errors: number; p50: number; p99: number; max: number; lateStartMs: number };

/**
 * `rate` requests per second for `seconds`, each on a keep-alive pool of at most 4 sockets (a
 * load balancer's connection reuse), each with a 2 s timeout; never more than 200 in flight
 * (beyond that a tick counts as an error instead of queueing without bound). Latency is from the
 * moment the request was issued; `lateStartMs` is how late the prober itself issued its worst one.
 */
export function fixedRate(url: string, rate: number, seconds: number): Promise<FixedRate> {
  const total = Math.max(1, Math.round(rate * seconds));
  return probe(url, rate, (i) => i >= total);
}

/** As fixedRate, from now until `stop` settles (at most `maxSeconds`): probing while something happens (a start-up). */
export function fixedRateUntil(url: string, rate: number, stop: Promise<unknown>, maxSeconds: number): Promise<FixedRate> {
  let stopped = false;
  void stop.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  const total = Math.max(1, Math.round(rate * maxSeconds));
  // One probe at least, however fast `stop` settles.
  return probe(url, rate, (i) => i > 0 && (stopped || i >= total));
}

async function probe(url: string, rate: number, finished: (sent: number) => boolean): Promise<FixedRate> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const interval = 1000 / rate;
  let total = 0;
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let lateStartMs = 0;
  let inFlight = 0;
  const done: Promise<void>[] = [];
  const one = () =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      inFlight++;
      const finish = (status: number | null) => {
        inFlight--;
        if (status === null) errors++;
        else {
          latencies.push(performance.now() - start);
          if (status >= 200 && status < 300) ok++;
          else non2xx++;
        }
        resolve();
      };
      const req = http.get(url, { agent, timeout: 2_000 }, (res) => {
        res.resume();
        res.once('end', () => finish(res.statusCode ?? 0));
        res.once('error', () => finish(null));
      });
      req.once('timeout', () => req.destroy(new Error('timeout')));
      req.once('error', () => finish(null));
    });
  const t0 = performance.now();
  for (let i = 0; !finished(i); i++) {
    total = i + 1;
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    lateStartMs = Math.max(lateStartMs, performance.now() - due);
    if (inFlight >= 200) {
      errors++;
      continue;
    }
    done.push(one());
  }
  await Promise.all(done);
  agent.destroy();
  return { rate, sent: total, ok, non2xx, errors, ...latencySummary(latencies), lateStartMs };
}
