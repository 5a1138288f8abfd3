// What the byte pump costs the main thread (issue 13). Run: node --import tsx benchmarks/pump.ts [--quick]
//
// 1. postMessage alone: a request head, and body bytes by mechanism (structured clone of a
//    Buffer view, or a copy into a fresh buffer that is then transferred, as the pump does).
// 2. End to end: a node:http server (benchmarks/pump/main.ts, its own process) whose main thread
//    answers by itself (`direct`) or forwards every request over the real pump to a worker that
//    answers the same bytes (`pump`), loaded by autocannon from this process. The main thread's
//    CPU time per request (/proc/<pid>/task/<pid>) with and without the pump is its cost per
//    request; with 1 MiB bodies, per MiB in each direction. `pump-noflush` is the pump without its
//    header flush (ServerResponse#flushHeaders made a no-op in that process).
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
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
type Case = { name: string; path: string; method: 'GET' | 'POST'; body?: Buffer; connections: number };
type Cost = { requests: number; mainUs: number; workerUs: number };

const CASES: Case[] = [
  { name: 'GET, 100 B answer', path: '/small', method: 'GET', connections: 50 },
  { name: 'POST 1 MiB, 100 B answer', path: '/upload', method: 'POST', body: Buffer.alloc(1024 * 1024, 121), connections: 10 },
  { name: 'GET, 1 MiB answer', path: '/big', method: 'GET', connections: 10 },
];

async function serverCosts(mode: ServerMode, seconds: number): Promise<Record<string, Cost>> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH, 'pump/main.ts'), mode], { cwd: ROOT, env: cleanEnv({}), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as Record<string, number>;
  try {
    const { port } = await next();
    const cpu = async () => {
      child.stdin!.write('cpu\n');
      return (await next()) as { main: number; worker: number };
    };
    const costs: Record<string, Cost> = {};
    for (const c of CASES) {
      const options = { url: `http://127.0.0.1:${port}${c.path}`, connections: c.connections, method: c.method, ...(c.body ? { body: c.body } : {}) };
      await autocannon({ ...options, duration: 1 }); // warm-up
      const before = await cpu();
      const result = await autocannon({ ...options, duration: seconds });
      const after = await cpu();
      const requests = result['2xx'];
      costs[c.name] = { requests, mainUs: ((after.main - before.main) * 1e6) / requests, workerUs: ((after.worker - before.worker) * 1e6) / requests };
    }
    return costs;
  } finally {
    child.kill('SIGTERM');
  }
}

async function endToEnd(seconds: number): Promise<string[]> {
  const costs = { direct: await serverCosts('direct', seconds), pump: await serverCosts('pump', seconds), 'pump-noflush': await serverCosts('pump-noflush', seconds) };
  const rows = ['main-thread CPU µs per request (worker µs): direct | pump | pump-noflush'];
  for (const c of CASES) {
    const cell = (mode: ServerMode) => {
      const k = costs[mode][c.name]!;
      return `${k.mainUs.toFixed(1)}${mode === 'direct' ? '' : ` (${k.workerUs.toFixed(1)})`} [${k.requests}]`;
    };
    rows.push(`  ${c.name}: ${cell('direct')} | ${cell('pump')} | ${cell('pump-noflush')}`);
  }
  const extra = (mode: ServerMode, name: string) => costs[mode][name]!.mainUs - costs.direct[name]!.mainUs;
  const perRequest = extra('pump', CASES[0]!.name);
  rows.push(`the pump's main-thread cost: ${perRequest.toFixed(1)} µs per request (${extra('pump-noflush', CASES[0]!.name).toFixed(1)} without the header flush)`);
  rows.push(`  per MiB of request body: ${((extra('pump', CASES[1]!.name) - perRequest) / 1000).toFixed(3)} ms; per MiB of response: ${((extra('pump', CASES[2]!.name) - perRequest) / 1000).toFixed(3)} ms`);
  return rows;
}

const quick = process.argv.includes('--quick');
console.log((await postMessageCosts()).join('\n'));
console.log((await endToEnd(quick ? 2 : 5)).join('\n'));
