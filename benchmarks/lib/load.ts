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
  return summarizeSaturation([await saturateRaw(url, seconds, connections)]);
}

/** One autocannon run with every response's latency, for summaries over several runs. */
export type RawSaturation = { latencies: number[]; requests: number; seconds: number; non2xx: number; errors: number };

export async function saturateRaw(url: string, seconds: number, connections: number): Promise<RawSaturation> {
  const latencies: number[] = [];
  const instance = autocannon({ url, connections, duration: seconds, pipelining: 1, timeout: 5 });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => void latencies.push(responseTime));
  const result = await instance;
  return { latencies, requests: result['2xx'] + result.non2xx, seconds: result.duration, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

/** Runs taken as one: requests over their summed time, percentiles over every response. */
export function summarizeSaturation(runs: RawSaturation[]): Saturation {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const { p50, p99, max } = latencySummary(runs.flatMap((r) => r.latencies));
  return { rps: requests / seconds, requests, p50, p99, max, non2xx: runs.reduce((n, r) => n + r.non2xx, 0), errors: runs.reduce((n, r) => n + r.errors, 0) };
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
