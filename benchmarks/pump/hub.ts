// Worker entry of benchmarks/pump/main.ts (through workers/bootstrap.mjs): the hub's real end of
// the byte pump (lib/hub/pump-server.ts) in front of an app that does no MCP work: GET /small
// answers 100 bytes of JSON, GET /big 1 MiB, POST reads the whole body and answers 100 bytes.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { servePump } from '../../lib/hub/pump-server.ts';

const SMALL = JSON.stringify({ ok: true, pad: 'x'.repeat(83) });
const BIG = new Uint8Array(1024 * 1024).fill(120);
const headers = { 'content-type': 'application/json' };

servePump(
  workerData.pump,
  async (request) => {
    if (request.method === 'POST') await request.arrayBuffer();
    else if (new URL(request.url).pathname === '/big') return new Response(BIG, { headers });
    return new Response(SMALL, { headers });
  },
  (error) => process.stderr.write(`pump hub: ${String(error)}\n`),
);
const link = fs.readlinkSync('/proc/thread-self');
parentPort!.postMessage({ tid: Number(link.slice(link.lastIndexOf('/') + 1)) });
