// The stderr sweep (issue 14): which stderr limits to choose. Each cell is one `agent serve`
// with one flooder backend writing stderr at a fixed rate and unique-line ratio, under one set of
// limits given as `--stderr-*` flags; while a fixed-rate prober asks /health, it measures the
// flooder's worker thread, the main thread, the log the service writes and what it suppressed.
//
//   node --import tsx benchmarks/stderr.ts [--quick] [--source] [--no-write]
//
// Prints the tables and writes benchmarks/results/<date>-stderr[-quick].json. Same rules as
// run.ts: 127.0.0.1 only, fixed-length phases, every process stopped by PID and checked gone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STDERR_LIMIT_FLAGS } from '../lib/cli/serve-options.ts';
import { DEFAULT_STDERR_LIMITS, type StderrLimits } from '../lib/shared/stderr-limits.ts';
import { type ArgSpec, checkArgs } from './lib/args.ts';
import { type FixedRate, fixedRate } from './lib/load.ts';
import { connectHttp, floodRate, floodStats } from './lib/mcp.ts';
import { childrenCpuMeter, cpuMeter, killPids, machineMeter, processesWith, rssMB, threadCpuMeter, threadsAtNice } from './lib/procs.ts';
import { BENCH, buildDist, type EldSnapshot, type Entry, FIXTURES, fixtureServer, ROOT, startAgent, type StopReport, type Summary, tmpRoot, waitHealthy } from './lib/service.ts';
import { round, sleep } from './lib/stats.ts';

export type LimitSet = { name: string; limits: Partial<StderrLimits> };

export type SweepOptions = {
  /** Flood rates, MB/s, of the main grid. */
  rates: number[];
  /** Shares of lines never written before (the rest: runs of one repeated line). */
  ratios: number[];
  /** Bytes per line in the main grid. */
  lineBytes: number;
  limitSets: LimitSet[];
  /** Limits every cell runs with under its set's (the quick sweep's shorter window and summary interval). */
  timing: Partial<StderrLimits>;
  /** A second grid with long lines, where the line cut matters. */
  longLines: { lineBytes: number; rates: number[]; ratio: number; limitSets: LimitSet[] };
  /** One cell with a healthy backend and no flood first: the probe path's floor. */
  baseline: boolean;
  phaseSeconds: number;
  settleMs: number;
  /** /health requests per second during each phase. */
  probeRate: number;
  entry: Entry;
  readyTimeoutMs: number;
  log: (line: string) => void;
};

const KiB = 1024;
export const LIMIT_SETS: Record<string, LimitSet> = {
  defaults: { name: 'defaults', limits: {} },
  lpw100: { name: 'linesPerWindow 100', limits: { linesPerWindow: 100 } },
  lpw1000: { name: 'linesPerWindow 1000', limits: { linesPerWindow: 1000 } },
  hw256k: { name: 'queueHighWaterBytes 256 KiB', limits: { queueHighWaterBytes: 256 * KiB } },
  hw8m: { name: 'queueHighWaterBytes 8 MiB', limits: { queueHighWaterBytes: 8 * KiB * KiB } },
  lb1k: { name: 'lineBytes 1 KiB', limits: { lineBytes: KiB } },
  lb64k: { name: 'lineBytes 64 KiB', limits: { lineBytes: 64 * KiB } },
  lpw1000lb64k: { name: 'linesPerWindow 1000 + lineBytes 64 KiB', limits: { linesPerWindow: 1000, lineBytes: 64 * KiB } },
};
const L = LIMIT_SETS;

// A phase of 10 s spans one quota window of the default 10 s exactly, so each cell logs one
// window's quota and two summary intervals.
export const FULL: SweepOptions = {
  rates: [1, 10, 50],
  ratios: [0, 0.5, 1],
  lineBytes: 120,
  limitSets: [L.defaults!, L.lpw100!, L.lpw1000!, L.hw256k!, L.hw8m!],
  timing: {},
  longLines: { lineBytes: 16 * KiB, rates: [10, 50], ratio: 1, limitSets: [L.defaults!, L.lb1k!, L.lb64k!, L.lpw1000lb64k!] },
  baseline: true,
  phaseSeconds: 10,
  settleMs: 500,
  probeRate: 200,
  entry: 'dist',
  readyTimeoutMs: 30_000,
  log: (line) => process.stderr.write(`${line}\n`),
};

export const QUICK: SweepOptions = {
  ...FULL,
  rates: [1, 50],
  ratios: [0, 1],
  limitSets: [L.defaults!, L.lpw1000!],
  longLines: { ...FULL.longLines, rates: [10], limitSets: [L.lb64k!] },
  // With the default 10 s window and 5 s summaries a 2 s phase saw neither a window's quota nor a
  // summary (its log figures read 0); scaled down, a 2 s phase spans one window and two summaries.
  timing: { windowSeconds: 2, summaryIntervalSeconds: 1 },
  phaseSeconds: 2,
};

/** What the output says about `timing`, or '' when every cell keeps the defaults'. */
export function timingNote(timing: Partial<StderrLimits>): string {
  const set = Object.entries(timing);
  if (set.length === 0) return '';
  return `every cell runs with ${set.map(([key, value]) => `${key} ${value}`).join(', ')} on top of its limits, so the log figures are per that window (lines logged/s ${DEFAULT_STDERR_LIMITS.windowSeconds / (timing.windowSeconds ?? DEFAULT_STDERR_LIMITS.windowSeconds)} × the full sweep's)`;
}

export type Cell = {
  group: 'baseline' | 'main' | 'long lines';
  targetMBps: number;
  uniqueRatio: number;
  lineBytes: number;
  limitSet: string;
  limits: StderrLimits;
  seconds: number;
  /** What the flooder's stderr reader took, MB/s. */
  flooderMBps: number;
  flooderLinesPerSec: number;
  /** The flooder's backend worker thread (the service's one thread at nice 11), % of one core. */
  workerCpuPct: number;
  workerThreads: number;
  mainCpuPct: number;
  serviceCpuPct: number;
  flooderCpuPct: number;
  /** The whole machine, % of all cores: other work on it shows here. */
  machineBusyPct: number;
  eld: EldSnapshot;
  health: FixedRate;
  /** Everything the service logged, bytes/s. */
  logBytesPerSec: number;
  stderrLinesPerSec: number;
  repeatedPerSec: number;
  suppressedPerSec: number;
  rssEndMB: number;
};

export type SweepResult = {
  date: string;
  quick: boolean;
  machine: { cpus: number; model: string; node: string; kernel: string };
  loadAverage: { start: number; end: number };
  options: Omit<SweepOptions, 'log'>;
  cells: Cell[];
  stops: StopReport[];
  leftovers: { pid: number; cmdline: string }[];
  table: string;
};

// The flooder's entry asks for nice 11, one above `--worker-nice 10` (the hub's), so that its
// worker thread is the service's one thread at nice 11 and can be measured alone.
const WORKER_NICE = 10;
const FLOODER_NICE = 11;

function limitArgs(limits: Partial<StderrLimits>): string[] {
  return Object.entries(limits).flatMap(([key, value]) => [`--${STDERR_LIMIT_FLAGS[key as keyof StderrLimits]}`, String(value)]);
}

type CellSpec = Pick<Cell, 'group' | 'targetMBps' | 'uniqueRatio' | 'lineBytes'> & { set: LimitSet };

export async function runStderrSweep(partial: Partial<SweepOptions> & { quick?: boolean } = {}): Promise<SweepResult> {
  const { quick = false, ...overrides } = partial;
  const o: SweepOptions = { ...(quick ? QUICK : FULL), ...overrides };
  const marker = `bench-stderr-${process.pid}-${Date.now().toString(36)}`;
  const tmp = tmpRoot(marker);
  const loadStart = os.loadavg()[0]!;
  const started = performance.now();
  const stops: StopReport[] = [];
  if (o.entry === 'dist') buildDist(o.log);

  const specs: CellSpec[] = [];
  if (o.baseline) specs.push({ group: 'baseline', targetMBps: 0, uniqueRatio: 0, lineBytes: 0, set: L.defaults! });
  for (const targetMBps of o.rates) for (const uniqueRatio of o.ratios) for (const set of o.limitSets) specs.push({ group: 'main', targetMBps, uniqueRatio, lineBytes: o.lineBytes, set });
  const ll = o.longLines;
  for (const targetMBps of ll.rates) for (const set of ll.limitSets) specs.push({ group: 'long lines', targetMBps, uniqueRatio: ll.ratio, lineBytes: ll.lineBytes, set });

  const cells: Cell[] = [];
  let leftovers: { pid: number; cmdline: string }[] = [];
  try {
    for (const [i, spec] of specs.entries()) {
      o.log(`${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ${i + 1}/${specs.length} ${describe(spec)}`);
      cells.push(await runCell(spec, o, marker, tmp, stops));
    }
  } finally {
    await sleep(200);
    leftovers = processesWith(marker);
    killPids(leftovers.map((p) => p.pid));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const cpu = os.cpus();
  const result: SweepResult = {
    date: new Date().toISOString(),
    quick,
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version, kernel: os.release() },
    loadAverage: { start: round(loadStart, 2), end: round(os.loadavg()[0]!, 2) },
    options: { ...o, log: undefined } as unknown as Omit<SweepOptions, 'log'>,
    cells,
    stops,
    leftovers,
    table: '',
  };
  result.table = formatTables(cells);
  return result;
}

function describe(spec: CellSpec): string {
  if (spec.group === 'baseline') return 'baseline: healthy backend, no flood';
  return `${spec.group}: ${spec.targetMBps} MB/s, unique ${spec.uniqueRatio}, ${spec.lineBytes}-byte lines, ${spec.set.name}`;
}

async function runCell(spec: CellSpec, o: SweepOptions, marker: string, tmp: string, stops: StopReport[]): Promise<Cell> {
  const flood = spec.group !== 'baseline';
  const env: Record<string, string> = flood ? { FLOOD_MBPS: String(spec.targetMBps), FLOOD_UNIQUE_RATIO: String(spec.uniqueRatio), FLOOD_LINE_BYTES: String(spec.lineBytes) } : {};
  const servers = { flood: fixtureServer(flood ? FIXTURES.flooder : FIXTURES.healthy, 'flood', marker, { nice: FLOODER_NICE }, env) };
  const limits = { ...o.timing, ...spec.set.limits };
  const agent = await startAgent({ entry: o.entry, servers, marker, tmp, serveArgs: ['--worker-nice', String(WORKER_NICE), ...limitArgs(limits)] });
  try {
    await waitHealthy(agent, ['flood'], o.readyTimeoutMs);
    const mcp = flood ? await connectHttp(agent.base, 'legacy') : null;
    try {
      await sleep(o.settleMs);
      const workers = threadsAtNice(agent.pid, FLOODER_NICE);
      // Threads by schedstat (ns): 10 ms ticks read 0 for a starved nice-11 worker over a short phase.
      const workerMeters = workers.map((tid) => threadCpuMeter(agent.pid, tid));
      const main = threadCpuMeter(agent.pid, agent.pid);
      const service = cpuMeter(agent.pid);
      const children = childrenCpuMeter(agent.pid);
      const machine = machineMeter();
      await agent.eld(); // reset
      const log0 = agent.logTotals();
      const s0 = mcp ? await floodStats(mcp, 'flood_agent_stats') : null;
      const t0 = performance.now();
      const health = await fixedRate(`${agent.base}/health`, o.probeRate, o.phaseSeconds);
      const seconds = (performance.now() - t0) / 1000;
      const workerCpuPct = workerMeters.reduce((sum, meter) => sum + meter(), 0);
      const mainCpuPct = main();
      const serviceCpuPct = service();
      const flooderCpuPct = children();
      const machineBusyPct = machine();
      const eld = await agent.eld();
      const log1 = agent.logTotals();
      const s1 = mcp && s0 ? await floodStats(mcp, 'flood_agent_stats') : null;
      const perSec = (a: number, b: number) => (b - a) / seconds;
      return {
        group: spec.group,
        targetMBps: spec.targetMBps,
        uniqueRatio: spec.uniqueRatio,
        lineBytes: spec.lineBytes,
        limitSet: spec.set.name,
        limits: { ...DEFAULT_STDERR_LIMITS, ...limits },
        seconds,
        flooderMBps: s0 && s1 ? floodRate(s0, s1) : 0,
        flooderLinesPerSec: s0 && s1 ? ((s1.lines - s0.lines) * 1000) / (s1.elapsedMs - s0.elapsedMs) : 0,
        workerCpuPct,
        workerThreads: workers.length,
        mainCpuPct,
        serviceCpuPct,
        flooderCpuPct,
        machineBusyPct,
        eld,
        health,
        logBytesPerSec: perSec(log0.bytes, log1.bytes),
        stderrLinesPerSec: perSec(log0.stderrLines, log1.stderrLines),
        repeatedPerSec: summaryRate(log1.summaries, 'repeated', t0, t0 + seconds * 1000) ?? perSec(log0.repeated, log1.repeated),
        suppressedPerSec: summaryRate(log1.summaries, 'suppressed', t0, t0 + seconds * 1000) ?? perSec(log0.suppressed, log1.suppressed),
        rssEndMB: rssMB(agent.pid),
      };
    } finally {
      await mcp?.close();
    }
  } finally {
    const stop = await agent.stop();
    stops.push(stop);
    if (stop.leftovers.length) o.log(`  ${stop.leftovers.length} process(es) outlived the service and were killed`);
  }
}

/**
 * Lines per second counted by the `kind` summaries read in [fromMs, toMs], over the whole summary
 * intervals between the first and the last of them (each counts the interval before it): a phase
 * catches two or three 1 s ticks depending on where they fall, so dividing by the phase's length
 * was off by up to half. Null with fewer than two such summaries.
 */
export function summaryRate(summaries: Summary[], kind: Summary['kind'], fromMs: number, toMs: number): number | null {
  // One tick's summaries (a `repeated` line per text) come within a few ms; ticks are ≥ 1 s apart.
  const ticks: Summary[] = [];
  for (const s of summaries) {
    if (s.kind !== kind || s.atMs < fromMs || s.atMs > toMs) continue;
    const last = ticks[ticks.length - 1];
    if (last && s.atMs - last.atMs < TICK_GAP_MS) last.count += s.count;
    else ticks.push({ ...s });
  }
  if (ticks.length < 2) return null;
  const span = ticks[ticks.length - 1]!.atMs - ticks[0]!.atMs;
  return (ticks.slice(1).reduce((sum, t) => sum + t.count, 0) * 1000) / span;
}
const TICK_GAP_MS = 200;

// ---------------------------------------------------------------------------------------------
// Tables

function fmt(v: number, digits = 1): string {
  if (!Number.isFinite(v)) return '-';
  return Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(digits);
}

const HEAD = ['flood MB/s', 'unique', 'limits', 'flooder got MB/s', 'worker CPU %', 'main CPU %', 'event-loop p99 ms', '/health p99 ms', 'log KB/s', 'lines logged/s', 'suppressed/s', 'suppressed % of written', 'machine busy %'];

function row(c: Cell): string[] {
  const written = c.flooderLinesPerSec;
  return [
    c.group === 'baseline' ? 'none' : String(c.targetMBps),
    c.group === 'baseline' ? '-' : String(c.uniqueRatio),
    c.limitSet,
    fmt(c.flooderMBps),
    fmt(c.workerCpuPct),
    fmt(c.mainCpuPct),
    fmt(c.eld.p99Ms, 2),
    fmt(c.health.p99, 2),
    fmt(c.logBytesPerSec / 1e3, 2),
    fmt(c.stderrLinesPerSec),
    fmt(c.suppressedPerSec, 0),
    written > 0 ? fmt((100 * c.suppressedPerSec) / written) : '-',
    fmt(c.machineBusyPct, 0),
  ];
}

function table(cells: Cell[]): string {
  const rows = cells.map(row);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i <= 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(HEAD), `|${widths.map((w, i) => (i <= 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** One markdown table for the baseline and the main grid, one for the long lines. */
export function formatTables(cells: Cell[]): string {
  const main = cells.filter((c) => c.group !== 'long lines');
  const long = cells.filter((c) => c.group === 'long lines');
  const parts = [table(main)];
  if (long.length) parts.push(`Long lines (${long[0]!.lineBytes} bytes, unique ${long[0]!.uniqueRatio}):\n\n${table(long)}`);
  return parts.join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE: ArgSpec = {
  usage: 'node --import tsx benchmarks/stderr.ts [--quick] [--source] [--no-write]   (npm run bench:stderr -- ...)',
  flags: ['--quick', '--source', '--no-write'],
};

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  checkArgs(USAGE, argv);
  const quick = argv.includes('--quick');
  const entry: Entry = argv.includes('--source') ? 'source' : 'dist';
  const result = await runStderrSweep({ quick, entry });
  const m = result.machine;
  const note = timingNote(result.options.timing);
  process.stdout.write(
    `\n${m.cpus} × ${m.model}, Node ${m.node}, Linux ${m.kernel}; ${quick ? 'quick' : 'full'} stderr sweep, entry ${entry}, ${result.options.phaseSeconds} s phases; ` +
      `load average ${result.loadAverage.start} before, ${result.loadAverage.end} after\n${note ? `(${note})\n` : ''}\n${result.table}\n`,
  );
  if (result.leftovers.length) process.stdout.write(`\nkilled ${result.leftovers.length} leftover process(es)\n`);
  if (!argv.includes('--no-write')) {
    const dir = path.join(BENCH, 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${result.date.replace(/[:.]/g, '-')}-stderr${quick ? '-quick' : ''}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\nwritten ${path.relative(ROOT, file)}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`stderr sweep failed: ${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
