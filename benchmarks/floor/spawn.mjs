// What a worker thread per backend costs at the least, beside the plain script (plain-spawn.mjs):
// N backends spawned and brought through the handshake in parallel, with
//   --kind plain   the SDK clients on this thread (plain-spawn.mjs's way);
//   --kind empty   the same, plus one worker thread per backend that loads nothing;
//   --kind sdk     each backend's SDK client in a worker thread of its own, compiled from a bundle
//                  with a shared code cache (made by a first worker before the clock starts).
// At most --concurrency backends start at once (0: all), from a worker's creation to the end of
// its handshake, as the service's start slots do. Prints {"kind","count","connectMs","cpuMs"}
// (cpuMs: this process's CPU, every thread, until all were up), then closes all and exits.
// Usage: node benchmarks/floor/spawn.mjs --kind plain|empty|sdk [--bundle <file>] [--concurrency 0]
//          [--handshake service|initialize] [--negotiation auto|legacy|2026-07-28] <count> <fixture.mjs> [extra...]
import '../lib/abort-warnings.mjs'; // before any client
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Worker } from 'node:worker_threads';
import { handshakeOptions, negotiationMode, readLists } from '../lib/handshake.mjs';

const argv = process.argv.slice(2);
const { handshake, negotiation } = handshakeOptions(argv);
const take = (name, fallback) => {
    const i = argv.indexOf(name);
    return i === -1 ? fallback : argv.splice(i, 2)[1];
};
const kind = take('--kind', 'plain');
const bundle = take('--bundle', null);
const concurrency = Number(take('--concurrency', '0')) || Number.POSITIVE_INFINITY;
if (!['plain', 'empty', 'sdk'].includes(kind)) throw new Error(`--kind: expected plain, empty or sdk, got ${JSON.stringify(kind)}`);
if (kind === 'sdk' && !bundle) throw new Error('--kind sdk needs --bundle <file> (startup-floor.ts builds it)');
const count = Number(argv[0]);
const fixture = argv[1];
const extra = argv.slice(2);
const loader = new URL('./loader.cjs', import.meta.url);

function startWorker(workerData) {
    const worker = new Worker(loader, { workerData });
    const up = new Promise((resolve, reject) => {
        worker.on('message', (message) => {
            if (message.type === 'up') resolve();
            else if (message.type === 'cache') worker.emit('cache', message.data);
        });
        worker.once('error', reject);
    });
    const close = async () => {
        worker.postMessage('close');
        await new Promise((resolve) => worker.once('exit', resolve));
    };
    return { worker, up, close };
}

async function plainClient(name) {
    const client = new Client({ name: 'floor', version: '1.0.0' }, { versionNegotiation: { mode: negotiationMode(negotiation) } });
    const transport = new StdioClientTransport({ command: process.execPath, args: [fixture, ...extra], env: { ...getDefaultEnvironment(), FIXTURE_NAME: name }, stderr: 'ignore' });
    await client.connect(transport);
    if (handshake === 'service') await readLists(client);
    return () => client.close();
}

// The code cache, made once before the clock starts (the service keeps one on disk between starts).
let cache = null;
if (kind === 'sdk') {
    const first = startWorker({ kind, bundle, cache: null, fixture, extra, name: 'prime', handshake, negotiation });
    const made = new Promise((resolve) => first.worker.once('cache', resolve));
    await first.up;
    const data = await made;
    cache = new SharedArrayBuffer(data.length);
    new Uint8Array(cache).set(data);
    await first.close();
}

let active = 0;
const waiting = [];
const slot = async () => {
    if (active < concurrency) active++;
    else await new Promise((resolve) => waiting.push(resolve));
};
const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
};

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const closers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
        await slot();
        try {
            const name = `f${i}`;
            if (kind === 'sdk') {
                const started = startWorker({ kind, bundle, cache, fixture, extra, name, handshake, negotiation });
                await started.up;
                return started.close;
            }
            const empty = kind === 'empty' ? startWorker({ kind }) : null;
            await empty?.up;
            const closeClient = await plainClient(name);
            return async () => {
                await closeClient();
                await empty?.close();
            };
        } finally {
            release();
        }
    })
);
const connectMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${JSON.stringify({ kind, count, handshake, negotiation, connectMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
await Promise.all(closers.map((close) => close()));
