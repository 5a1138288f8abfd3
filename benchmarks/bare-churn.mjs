// The "bare-churn" baseline: the bare node:http server of bare-server.mjs, and in the same process
// the churn mix the service supervises in `churn`: healthy fixtures, crashers restarted after the
// service's backoff (restartDelay × 2^min(n-1, 4)), and flooders whose stderr it reads and
// discards. Each child gets one MCP `initialize` line (a crasher exits ~200 ms after it) and runs
// at the service's worker nice value. No MCP client, no worker thread: the physical limit of
// answering probes while this churn runs on the machine.
//
//   node benchmarks/bare-churn.mjs <body file> '<config JSON>' <run marker>
//   config: { healthy, crashers, flooders, floodMBps, restartDelay, nice, fixtures: {healthy, crasher, flooder} }
//
// Prints {"port":N} once listening; answers a "stats" line on stdin with
// {"restarts","stderrBytes","elapsedMs"}; on SIGTERM or the end of stdin it kills its children and exits.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import readline from 'node:readline';

const body = fs.readFileSync(process.argv[2]);
const config = JSON.parse(process.argv[3]);
const marker = process.argv[4] ?? '';
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bare-churn', version: '1.0.0' } } })}\n`;
const ENV = Object.fromEntries(['HOME', 'PATH', 'TERM', 'USER'].filter((k) => process.env[k]).map((k) => [k, process.env[k]]));
const startedAt = performance.now();

const children = new Set();
let restarts = 0;
let stderrBytes = 0;
let stopping = false;

function start(fixture, name, env, restart) {
    if (stopping) return;
    const child = spawn(process.execPath, [fixture, marker], { env: { ...ENV, FIXTURE_NAME: name, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    try {
        if (config.nice > 0) os.setPriority(child.pid, config.nice);
    } catch {
        /* already gone */
    }
    child.stdin.on('error', () => {});
    child.stdin.write(INITIALIZE);
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderrBytes += chunk.length));
    child.once('exit', () => {
        children.delete(child);
        if (restart) restart();
    });
}

function crasher(i) {
    let attempt = 0;
    const again = () => {
        attempt++;
        restarts++;
        setTimeout(() => start(config.fixtures.crasher, `c${i}`, {}, again), config.restartDelay * 2 ** Math.min(attempt - 1, 4));
    };
    start(config.fixtures.crasher, `c${i}`, {}, again);
}

for (let i = 0; i < config.healthy; i++) start(config.fixtures.healthy, `h${i}`, {}, null);
for (let i = 0; i < config.crashers; i++) crasher(i);
for (let i = 0; i < config.flooders; i++) start(config.fixtures.flooder, `f${i}`, { FLOOD_MBPS: String(config.floodMBps) }, null);

const server = http.createServer((_req, res) => {
    res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': body.length,
        'Cache-Control': 'no-cache, no-store, must-revalidate'
    });
    res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));

const stop = () => {
    stopping = true;
    for (const child of children) child.kill('SIGKILL');
    server.close();
    server.closeAllConnections();
    process.exit(0);
};
process.on('SIGTERM', stop);
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
    if (line.trim() === 'stats') process.stdout.write(`${JSON.stringify({ restarts, stderrBytes, elapsedMs: performance.now() - startedAt })}\n`);
});
lines.on('close', stop);
