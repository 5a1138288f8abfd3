// Diagnostic (not part of the sweep): how deep the stderr capture's queue gets, and how fast the
// splitter and capture alone go, when a pipe delivers 64 KiB reads of distinct lines. Runs the
// real LineSplitter and StderrCapture in this process on generated chunks: no service, no child.
// It backs the queueHighWaterBytes advice in benchmarks/README.md.
//
//   node --import tsx benchmarks/stderr-queue.ts [MB per case, default 20] [--no-counting]
import { LineSplitter } from '../lib/backend/line-splitter.ts';
import { StderrCapture } from '../lib/backend/stderr-capture.ts';
import { DEFAULT_STDERR_LIMITS, type StderrLimits } from '../lib/shared/stderr-limits.ts';
import { checkArgs } from './lib/args.ts';

const READ_BYTES = 64 * 1024; // what one 'data' event of a child's pipe carries at most
checkArgs({ usage: 'node --import tsx benchmarks/stderr-queue.ts [MB per case, default 20] [--no-counting]', flags: ['--no-counting'], positionals: 1 });
const megabytes = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 20);

/** `total` bytes of distinct lines of `lineBytes` bytes (newline included), in pipe-sized reads. */
function reads(lineBytes: number, total: number): Buffer[] {
  const out: Buffer[] = [];
  let n = 0;
  for (let written = 0; written < total; written += READ_BYTES) {
    let text = '';
    while (text.length < READ_BYTES) {
      const head = `line ${n++} `;
      text += `${head}${'x'.repeat(Math.max(0, lineBytes - head.length - 1))}\n`;
    }
    out.push(Buffer.from(text.slice(0, READ_BYTES)));
  }
  return out;
}

async function measure(lineBytes: number, limits: StderrLimits) {
  const chunks = reads(lineBytes, megabytes * 1e6);
  let pauses = 0;
  let logged = 0;
  const capture = new StderrCapture({ emit: (entry) => void (entry.kind === 'line' && logged++), limits });
  // Wired as lib/backend/stdio-connection.ts wires them (unless --no-counting: before the counter).
  const counter = process.argv.includes('--no-counting') ? null : { countsOnly: () => capture.dropsEverything(), count: (lines: number) => capture.countDropped(lines), repeat: (lines: number) => capture.countRepeats(lines) };
  const splitter = new LineSplitter((line, truncated) => capture.push(line, truncated), limits.lineBytes, counter);
  capture.attach({ pause: () => pauses++, resume: () => undefined, setLineBytes: (bytes) => (splitter.maxBytes = bytes) });
  let maxQueued = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const chunk of chunks) {
    splitter.push(chunk);
    maxQueued = Math.max(maxQueued, capture.queuedBytes);
    // Between two reads the event loop runs: the capture's decisions (microtasks) happen here.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await capture.idle();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  capture.close();
  const bytes = chunks.length * READ_BYTES;
  return { lineBytes, linesPerWindow: limits.linesPerWindow, maxQueuedKiB: maxQueued / 1024, pauses, logged, mbPerCpuSecond: bytes / 1e6 / ((cpu.user + cpu.system) / 1e6), seconds };
}

const rows = [];
for (const lineBytes of [16, 120, 1024, 16_384]) {
  for (const linesPerWindow of [DEFAULT_STDERR_LIMITS.linesPerWindow, 1000]) rows.push(await measure(lineBytes, { ...DEFAULT_STDERR_LIMITS, linesPerWindow }));
}
process.stdout.write(`${megabytes} MB of distinct lines per case, in ${READ_BYTES / 1024} KiB reads; Node ${process.version}\n\n`);
process.stdout.write('| line bytes | linesPerWindow | deepest queue KiB | pauses at 1 MiB | lines logged | MB per CPU second |\n|---:|---:|---:|---:|---:|---:|\n');
for (const r of rows) process.stdout.write(`| ${r.lineBytes} | ${r.linesPerWindow} | ${r.maxQueuedKiB.toFixed(0)} | ${r.pauses} | ${r.logged} | ${r.mbPerCpuSecond.toFixed(0)} |\n`);
