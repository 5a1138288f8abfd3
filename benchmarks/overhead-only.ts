// The `overhead` scenario of the suite alone (about a minute): one client calling `echo`
// directly over stdio, through the service and through the thin gateway, with the per-hop
// breakdown of traced calls.
//
//   node --import tsx benchmarks/overhead-only.ts [--source] [--worker-nice <n>] [--warmup <calls>]
import { scriptArgs } from './lib/args.ts';
import { agentRunner } from './lib/context.ts';
import { buildDist, type StopReport, tmpRoot } from './lib/service.ts';
import { FULL } from './run.ts';
import { overhead } from './scenarios/overhead.ts';

const args = scriptArgs({ usage: 'node --import tsx benchmarks/overhead-only.ts [--source] [--worker-nice <n>] [--warmup <calls>]', flags: ['--source'], options: ['--worker-nice', '--warmup'] });
const entry = args.entry;
const serveArgs = args.has('--worker-nice') ? ['--worker-nice', args.text('--worker-nice')!] : [];
const marker = `bench-overhead-${process.pid}-${Date.now().toString(36)}`;
const tmp = tmpRoot(marker);
const log = (line: string) => process.stderr.write(`${line}\n`);
if (entry === 'dist') buildDist(log);
const stops: StopReport[] = [];
const withAgent = agentRunner({ entry, marker, tmp, readyTimeoutMs: FULL.readyTimeoutMs, settleMs: FULL.settleMs, log, stops });
const result = await overhead({ marker, tmp, log, withAgent, fixedRate: FULL.fixedRate, connections: FULL.connections }, { ...FULL.overhead, serveArgs, ...(args.has('--warmup') ? { warmupCalls: args.number('--warmup', 0) } : {}) }, 'overhead', stops);
const added = result.service.serial.p50 - result.direct.serial.p50;
process.stdout.write(`1 caller p50: direct ${result.direct.serial.p50.toFixed(2)} ms, service ${result.service.serial.p50.toFixed(2)} ms, added ${added.toFixed(2)} ms; thin gateway ${result.thin.serial.p50.toFixed(2)} ms, added ${(result.thin.serial.p50 - result.direct.serial.p50).toFixed(2)} ms\n`);
process.stdout.write(`${result.callers} callers: direct ${Math.round(result.direct.concurrent.perSecond)} calls/s, service ${Math.round(result.service.concurrent.perSecond)} calls/s, thin gateway ${Math.round(result.thin.concurrent.perSecond)} calls/s\n`);
for (const hop of result.service.traced.hops) process.stdout.write(`  ${hop.p50Ms.toFixed(2).padStart(6)} ${hop.p90Ms.toFixed(2).padStart(6)}  ${hop.what}\n`);
process.stdout.write(`  traced end to end p50 ${result.service.traced.totalP50Ms.toFixed(2)} ms (direct ${result.direct.traced.totalP50Ms.toFixed(2)}), sum of hop p50s ${result.service.traced.sumOfP50Ms.toFixed(2)}\n`);
process.exit(0);
