// What the byte pump costs the main thread (issue 13): the time spent in postMessage for a
// request head and for body bytes, by mechanism: structured clone of a Buffer view, or a copy
// into a fresh buffer that is then transferred. Run: node --import tsx benchmarks/pump.ts
import { MessageChannel, Worker } from 'node:worker_threads';

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
async function send(port: import('node:worker_threads').MessagePort, mode: Mode, size: number, total: number): Promise<number> {
  const pool = Buffer.alloc(size * 8, 7);
  let inPost = 0;
  let sent = 0;
  let sinceAck = 0;
  while (sent < total) {
    const view = pool.subarray((sent / size) % 8 * size, ((sent / size) % 8 + 1) * size);
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

async function heads(port: import('node:worker_threads').MessagePort, count: number): Promise<number> {
  const raw = ['Host', '127.0.0.1:3050', 'Content-Type', 'application/json', 'Accept', 'application/json, text/event-stream', 'Mcp-Session-Id', 'h0-3f2a9c1e-4b7d-4e8a-9f10-2c3d4e5f6a7b', 'Mcp-Protocol-Version', '2025-06-18', 'Content-Length', '96'];
  const t0 = performance.now();
  for (let i = 0; i < count; i++) port.postMessage({ type: 'request', id: i, method: 'POST', url: '/mcp', headers: raw, remoteAddress: '127.0.0.1' });
  const spent = performance.now() - t0;
  const acked = new Promise((r) => port.once('message', r));
  port.postMessage({ ack: true });
  await acked;
  return spent;
}

const worker = new Worker(WORKER, { eval: true });
const { port1, port2 } = new MessageChannel();
worker.postMessage({ port: port2 }, [port2]);

const MiB = 1024 * 1024;
const rows: string[] = [];
const headCount = 100_000;
await heads(port1, 5_000);
rows.push(`request head (6 headers): ${((await heads(port1, headCount)) * 1000 / headCount).toFixed(2)} µs per request`);
for (const size of [4 * 1024, 64 * 1024]) {
  for (const mode of ['clone', 'copy+transfer'] as const) {
    await send(port1, mode, size, 16 * MiB);
    const total = 256 * MiB;
    const ms = await send(port1, mode, size, total);
    rows.push(`body, ${size / 1024} KiB chunks, ${mode}: ${(ms / (total / MiB)).toFixed(3)} ms per MiB (${((ms * 1000) / (total / size)).toFixed(2)} µs per chunk)`);
  }
}
console.log(rows.join('\n'));
await worker.terminate();
