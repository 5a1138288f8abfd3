// The physical limit for "`/health` p99 during the start-up of N backends ÷ after" (issue 14), as
// `bare-churn` is for churn: the bare node:http server of the `bare` scenario, probed at a fixed
// rate while the plain script starts the same N fixtures at the nice value the service gives its
// backends (10 by default), then as long again once they are up. What is left between this ratio
// and the service's (scale.ts) is the service's own doing, not the machine's.
//
//   node --import tsx benchmarks/startup-bare.ts [--backends 50] [--rate 200] [--nice 10] [--rounds 2] [--after 10]
import path from 'node:path';
import { fixedRate, fixedRateUntil } from './lib/load.ts';
import { scriptArgs } from './lib/args.ts';
import { BENCH, FIXTURES, runScript, startBare, tmpRoot } from './lib/service.ts';
import { round } from './lib/stats.ts';

const args = scriptArgs({ usage: 'node --import tsx benchmarks/startup-bare.ts [--backends 50] [--rate 200] [--nice 10] [--rounds 2] [--after 10]', options: ['--backends', '--rate', '--nice', '--rounds', '--after'] });
const backends = args.number('--backends', 50);
const rate = args.number('--rate', 200);
const nice = args.number('--nice', 10);
const rounds = args.number('--rounds', 2);
const afterSeconds = args.number('--after', 10);

const marker = `bench-startup-bare-${process.pid}-${Date.now().toString(36)}`;
const tmp = tmpRoot(marker);
// A body the size of the service's /health with `backends` servers at the full level.
const details = Array.from({ length: backends }, (_, i) => ({ name: `h${i}`, status: 'connected', healthy: true, lastConnected: new Date().toISOString(), lastError: null, tags: [] }));
const body = JSON.stringify({ status: 'healthy', timestamp: new Date().toISOString(), servers: { total: backends, healthy: backends, unhealthy: 0, details } });

const rows: Record<string, number | string>[] = [];
for (let r = 1; r <= rounds; r++) {
  const bare = await startBare(body, { marker, tmp });
  try {
    const plain = runScript<{ count: number }>(path.join(BENCH, 'plain-spawn.mjs'), [String(backends), FIXTURES.healthy, marker], 300_000, nice);
    const startup = await fixedRateUntil(`${bare.base}/`, rate, plain, 300);
    const { firstLineMs } = await plain;
    const after = await fixedRate(`${bare.base}/`, rate, afterSeconds);
    rows.push({
      round: r,
      'plain ms': round(firstLineMs, 0),
      'start-up p50 / p99 / max ms': `${round(startup.p50, 1)} / ${round(startup.p99, 1)} / ${round(startup.max, 1)}`,
      'after p99 ms': round(after.p99, 1),
      'p99 ÷': round(startup.p99 / after.p99, 2),
      errors: startup.errors + after.errors,
    });
  } finally {
    await bare.stop();
  }
}
process.stdout.write(`bare node:http probed at ${rate}/s while the plain script starts ${backends} backends at nice ${nice}\n`);
console.table(rows);
