// Benchmark-only `--import` preload, never part of the product: every worker thread of the
// measured service appends one JSON line {tid, role, name} to the file named by
// BENCH_THREADS_FILE, so the harness can read each hub's CPU time from /proc/<pid>/task/<tid>.
// The role comes from the shape of the worker's data: a hub gets {settings, pump}, a backend
// worker {spec, ...}; anything else (the config pool, the token pool) is "other".
import fs from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';

const file = process.env.BENCH_THREADS_FILE;

if (!isMainThread && file) {
    let tid = null;
    try {
        const link = fs.readlinkSync('/proc/thread-self');
        tid = Number(link.slice(link.lastIndexOf('/') + 1));
    } catch {
        /* not Linux */
    }
    const data = workerData ?? {};
    const role = data.settings && data.pump ? 'hub' : data.spec ? 'backend' : 'other';
    const name = role === 'hub' ? `hub ${data.settings.index}` : role === 'backend' ? data.spec.name : '';
    if (tid !== null) fs.appendFileSync(file, `${JSON.stringify({ tid, role, name })}\n`);
}
