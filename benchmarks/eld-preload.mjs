// Benchmark-only preload (`node --import ./benchmarks/eld-preload.mjs ...`), never part of the
// product: measures the main thread's event-loop delay with perf_hooks.monitorEventLoopDelay.
// On SIGUSR2 it appends one JSON line with the histogram since the previous signal to the file
// named by BENCH_ELD_FILE, then resets the histogram. Worker threads (which inherit --import)
// and processes without BENCH_ELD_FILE do nothing.
//
// The histogram samples every RESOLUTION_MS; a sample is the time between two samples, so the
// delay is the sample minus RESOLUTION_MS (the `*Ms` fields below are already that excess).
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_ELD_FILE;
const RESOLUTION_MS = 10;

if (isMainThread && file) {
    delete process.env.BENCH_ELD_FILE; // children of the measured process do not inherit it
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    let seq = 0;
    const excess = nanoseconds => Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS);
    process.on('SIGUSR2', () => {
        const line = {
            seq: ++seq,
            at: Date.now(),
            pid: process.pid,
            resolutionMs: RESOLUTION_MS,
            samples: histogram.count,
            p50Ms: excess(histogram.percentile(50)),
            p99Ms: excess(histogram.percentile(99)),
            maxMs: excess(histogram.max),
            meanMs: excess(histogram.mean)
        };
        histogram.reset();
        fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    });
}
