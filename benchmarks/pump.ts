// What the byte pump costs the main thread (issue 13). Run: node --import tsx benchmarks/pump.ts [--quick]
//
// 1. postMessage alone: a request head, and body bytes by mechanism (structured clone of a
//    Buffer view, or a copy into a fresh buffer that is then transferred, as the pump does).
// 2. End to end: a node:http server (benchmarks/pump/main.ts, its own process) whose main thread
//    answers by itself (`direct`) or forwards every request over the real pump to a worker that
//    answers the same bytes (`pump`), loaded by autocannon from this process at the same fixed
//    rate. The main thread's CPU time per request (/proc/<pid>/task/<pid>/schedstat) with and
//    without the pump is its cost per request; with 1 MiB bodies, per MiB in each direction.
//    `pump-noflush` is the pump without its header flush (ServerResponse#flushHeaders made a no-op
//    in that process). Each case runs 3 times interleaved (1 with --quick); medians are printed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { checkArgs } from './lib/args.ts';
import { BENCH, cleanEnv, ROOT } from './lib/service.ts';

const WORKER = `
  const { parentPort } = require('node:worker_threads');
  parentPort.on('message', ({ port }) => {
    let bytes = 0;
    port.on('message', (m) => {
      bytes += m.chunk ? m.chunk.byteLength : 0;
      if (m.ack) port.postMessage(bytes);
    });
  });`;

type Mode = 'clone' | 'copy+transfer';

// Sends `total` bytes in `size` chunks taken from a larger buffer (as node's socket reads are),
// waiting for an ack every 4 MiB so memory stays bounded. Returns main-thread ms in postMessage.
async function send(port: MessagePort, mode: Mode, size: number, total: number): Promise<number> {
  const pool = Buffer.alloc(size * 8, 7);
  let inPost = 0;
  let sent = 0;
  let sinceAck = 0;
  while (sent < total) {
    const view = pool.subarray(((sent / size) % 8) * size, (((sent / size) % 8) + 1) * size);
    const t0 = performance.now();
    if (mode === 'clone') port.postMessage({ type: 'body', id: 1, chunk: view });
    else {
      const owned = Uint8Array.prototype.slice.call(view);
      port.postMessage({ type: 'body', id: 1, chunk: owned }, [owned.buffer as ArrayBuffer]);
    }
    inPost += performance.now() - t0;
    sent += size;
    sinceAck += size;
    if (sinceAck >= 4 * 1024 * 1024) {
      sinceAck = 0;
      const acked = new Promise((r) => port.once('message', r));
      port.postMessage({ ack: true });
      await acked;
    }
  }
  return inPost;
}

async function heads(port: MessagePort, count: number): Promise<number> {
  const raw = ['Host', '127.0.0.1:3050', 'Content-Type', 'application/json', 'Accept', 'application/json, text/event-stream', 'Mcp-Session-Id', 'h0-3f2a9c1e-4b7d-4e8a-9f10-2c3d4e5f6a7b', 'Mcp-Protocol-Version', '2025-06-18', 'Content-Length', '96'];
  const t0 = performance.now();
  for (let i = 0; i < count; i++) port.postMessage({ type: 'request', id: i, method: 'POST', url: '/mcp', headers: raw, remoteAddress: '127.0.0.1' });
  const spent = performance.now() - t0;
  const acked = new Promise((r) => port.once('message', r));
  port.postMessage({ ack: true });
  await acked;
  return spent;
}

async function postMessageCosts(): Promise<string[]> {
  const worker = new Worker(WORKER, { eval: true });
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ port: port2 }, [port2]);
  const MiB = 1024 * 1024;
  const rows: string[] = [];
  const headCount = 100_000;
  await heads(port1, 5_000);
  rows.push(`request head (6 headers): ${(((await heads(port1, headCount)) * 1000) / headCount).toFixed(2)} µs per request`);
  for (const size of [4 * 1024, 64 * 1024]) {
    for (const mode of ['clone', 'copy+transfer'] as const) {
      await send(port1, mode, size, 16 * MiB);
      const total = 256 * MiB;
      const ms = await send(port1, mode, size, total);
      rows.push(`body, ${size / 1024} KiB chunks, ${mode}: ${(ms / (total / MiB)).toFixed(3)} ms per MiB (${((ms * 1000) / (total / size)).toFixed(2)} µs per chunk)`);
    }
  }
  await worker.terminate();
  port1.close();
  return rows;
}

// ---------------------------------------------------------------------------------------------
// End to end

type ServerMode = 'direct' | 'pump' | 'pump-noflush';
type Case = { name: string; path: string; method: 'GET' | 'POST'; body?: Buffer; connections: number; rate: number };
type Cost = { requests: number; mainUs: number; workerUs: number };

// The same fixed rate with and without the pump, well below what either sustains on 2 cores: a
// thread's CPU per request falls as its load rises (more work per wake-up and per syscall), so
// costs are only comparable at equal rates.
const CASES: Case[] = [
  { name: 'GET, 100 B answer', path: '/small', method: 'GET', connections: 10, rate: 1_500 },
  { name: 'POST 1 MiB, 100 B answer', path: '/upload', method: 'POST', body: Buffer.alloc(1024 * 1024, 121), connections: 5, rate: 100 },
  { name: 'GET, 1 MiB answer', path: '/big', method: 'GET', connections: 5, rate: 150 },
];
const MODES: ServerMode[] = ['direct', 'pump', 'pump-noflush'];

type Server = { port: number; cpu: () => Promise<{ main: number; worker: number }>; stop: () => void };

async function startServer(mode: ServerMode): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH, 'pump/main.ts'), mode], { cwd: ROOT, env: cleanEnv({}), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as Record<string, number>;
  const { port } = await next();
  return {
    port: port!,
    cpu: async () => {
      child.stdin!.write('cpu\n');
      return (await next()) as { main: number; worker: number };
    },
    stop: () => void child.kill('SIGTERM'),
  };
}

async function measure(server: Server, c: Case, seconds: number): Promise<Cost> {
  const options = { url: `http://127.0.0.1:${server.port}${c.path}`, connections: c.connections, overallRate: c.rate, method: c.method, ...(c.body ? { body: c.body } : {}) };
  await autocannon({ ...options, duration: 1 }); // warm-up
  const before = await server.cpu();
  const result = await autocannon({ ...options, duration: seconds });
  const after = await server.cpu();
  const requests = result['2xx'];
  return { requests, mainUs: ((after.main - before.main) * 1e6) / requests, workerUs: ((after.worker - before.worker) * 1e6) / requests };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Every case on every server, `repeats` times interleaved; the median of each. */
async function endToEnd(seconds: number, repeats: number): Promise<string[]> {
  const servers = Object.fromEntries(await Promise.all(MODES.map(async (mode) => [mode, await startServer(mode)] as const))) as Record<ServerMode, Server>;
  const samples = new Map<string, Cost[]>();
  try {
    for (let r = 0; r < repeats; r++) {
      for (const c of CASES) {
        for (const mode of MODES) {
          const key = `${mode} ${c.name}`;
          samples.set(key, [...(samples.get(key) ?? []), await measure(servers[mode], c, seconds)]);
        }
      }
    }
  } finally {
    for (const server of Object.values(servers)) server.stop();
  }
  const cost = (mode: ServerMode, c: Case) => {
    const all = samples.get(`${mode} ${c.name}`)!;
    return { mainUs: median(all.map((k) => k.mainUs)), workerUs: median(all.map((k) => k.workerUs)), requests: median(all.map((k) => k.requests)) };
  };
  const rows = [`main-thread CPU µs per request (worker µs) [requests answered], median of ${repeats}: direct | pump | pump-noflush`];
  for (const c of CASES) {
    const cell = (mode: ServerMode) => {
      const k = cost(mode, c);
      return `${k.mainUs.toFixed(1)}${mode === 'direct' ? '' : ` (${k.workerUs.toFixed(1)})`} [${k.requests}]`;
    };
    rows.push(`  ${c.name}, ${c.rate}/s: ${MODES.map(cell).join(' | ')}`);
  }
  const extra = (mode: ServerMode, c: Case) => cost(mode, c).mainUs - cost('direct', c).mainUs;
  const [small, upload, big] = CASES as [Case, Case, Case];
  const perRequest = extra('pump', small);
  rows.push(`the pump's main-thread cost: ${perRequest.toFixed(1)} µs per request (${extra('pump-noflush', small).toFixed(1)} without the header flush)`);
  rows.push(`  per MiB of request body: ${((extra('pump', upload) - perRequest) / 1000).toFixed(3)} ms; per MiB of response: ${((extra('pump', big) - perRequest) / 1000).toFixed(3)} ms`);
  return rows;
}

checkArgs({ usage: 'node --import tsx benchmarks/pump.ts [--quick]', flags: ['--quick'] });
const quick = process.argv.includes('--quick');
console.log((await postMessageCosts()).join('\n'));
console.log((await endToEnd(quick ? 3 : 5, quick ? 1 : 3)).join('\n'));
