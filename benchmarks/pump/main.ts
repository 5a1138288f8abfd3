// The server process of benchmarks/pump.ts: a node:http server whose main thread either answers
// by itself (`direct`: what the bytes would cost with no pump) or forwards every request over
// the real byte pump (lib/main/pump-client.ts) to a worker running the hub's end (pump/hub.ts),
// which answers the same bytes. `pump-noflush` is `pump` with ServerResponse#flushHeaders made a
// no-op: what the pump's header flush costs. Prints {"port"} once listening; answers "cpu" on
// stdin with the CPU seconds of its main thread and of the worker thread.
//   node --import tsx benchmarks/pump/main.ts <direct|pump|pump-noflush>
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import { MessageChannel, Worker } from 'node:worker_threads';
import { PumpClient } from '../../lib/main/pump-client.ts';

const mode = process.argv[2];
const SMALL = JSON.stringify({ ok: true, pad: 'x'.repeat(83) });
const BIG = Buffer.alloc(1024 * 1024, 120);

// Time the thread spent on a CPU, ns precision (/proc/.../schedstat; utime + stime count 10 ms ticks).
function threadCpuSeconds(tid: number | null): number {
  if (tid === null) return 0;
  return Number(fs.readFileSync(`/proc/${process.pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

let handler: http.RequestListener;
let workerTid: number | null = null;
if (mode === 'direct') {
  const answer = (res: http.ServerResponse, body: string | Buffer) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  handler = (req, res) => {
    if (req.method === 'POST') req.on('data', () => undefined).on('end', () => answer(res, SMALL));
    else answer(res, req.url === '/big' ? BIG : SMALL);
  };
} else {
  if (mode === 'pump-noflush') http.ServerResponse.prototype.flushHeaders = () => undefined;
  const channel = new MessageChannel();
  const worker = new Worker(new URL('../../workers/bootstrap.mjs', import.meta.url), {
    workerData: { entry: new URL('./hub.ts', import.meta.url).href, pump: channel.port2 },
    transferList: [channel.port2],
  });
  workerTid = await new Promise<number>((resolve) => worker.once('message', (m: { tid: number }) => resolve(m.tid)));
  const client = new PumpClient(channel.port1, { maxBodyBytes: 64 * 1024 * 1024 });
  handler = (req, res) => client.forward(req, res);
}

const server = http.createServer(handler);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`));
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') process.stdout.write(`${JSON.stringify({ main: threadCpuSeconds(process.pid), worker: threadCpuSeconds(workerTid) })}\n`);
}).on('close', () => process.exit(0));
