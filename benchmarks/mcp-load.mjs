#!/usr/bin/env node
// The MCP clients of the `traffic` and `overhead` scenarios, in a process of their own (the v2 SDK
// client, 2025 sessions), so their CPU is not the harness's and can be measured apart. Calls
// `echo` with a text of `textBytes` characters.
//
//   node benchmarks/mcp-load.mjs '<config JSON>' <run marker>
//   config: { url?: ".../mcp", direct?: {fixture, env}, clients, tools: [name, ...] (client i
//             calls tools[i % length]), textBytes, warmupCalls, maxSeconds }
//
// JSON lines in both directions: it prints {"ready":...} once every client is connected and warm,
// then answers each command read from stdin:
//   {"cmd":"loop","callers":c}   every client runs c callers back to back until "halt"
//   {"cmd":"report"}             the calls completed since the previous report (or the loop's start)
//   {"cmd":"halt"}               stops the loop, waits for the calls in flight
//   {"cmd":"run","callers":c,"seconds":s}   client 0 alone, c callers for s seconds
//   {"cmd":"trace","calls":n}    client 0, n traced calls one after the other (trace-preload.mjs)
//   {"cmd":"stop"}               closes the clients and exits (so does the end of stdin)
// It stops by itself after `maxSeconds` whatever happens.
import './lib/abort-warnings.mjs'; // before any client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import readline from 'node:readline';

const config = JSON.parse(process.argv[2]);
const marker = process.argv[3] ?? '';
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const now = () => Number(process.hrtime.bigint() / 1000n); // µs, the trace's clock

let stopping = null;
const clients = [];
const stop = (reason) =>
    (stopping ??= (async () => {
        const hard = setTimeout(() => process.exit(0), 3_000);
        hard.unref();
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        if (reason !== 'asked') process.stderr.write(`mcp-load: stopped (${reason})\n`);
        process.exit(0);
    })());
setTimeout(() => void stop(`time limit of ${config.maxSeconds} s`), config.maxSeconds * 1000).unref();

// When the request body carries a traced text, the HTTP request carries its number in a header.
const fetchSeen = new Map();
async function tracingFetch(url, init) {
    const body = typeof init?.body === 'string' ? init.body : '';
    const at = body.indexOf('"trace:');
    if (at === -1) return fetch(url, init);
    const seq = /^"trace:(\d+):/.exec(body.slice(at, at + 32))[1];
    fetchSeen.set(Number(seq), now());
    const headers = new Headers(init.headers);
    headers.set('x-bench-trace', seq);
    return fetch(url, { ...init, headers });
}

async function connect() {
    const client = new Client({ name: 'bench-load', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = config.url
        ? new StreamableHTTPClientTransport(new URL(config.url), { fetch: tracingFetch })
        : new StdioClientTransport({
              command: process.execPath,
              args: [config.direct.fixture, marker],
              env: { ...getDefaultEnvironment(), ...config.direct.env },
              stderr: 'ignore',
          });
    await client.connect(transport);
    return client;
}

const filler = 'x'.repeat(config.textBytes);
const textFor = (seq) => (seq === null ? filler : `trace:${seq}:${filler.slice(String(seq).length + 7)}`);

async function call(client, tool, seq = null) {
    const result = await client.callTool({ name: tool, arguments: { text: textFor(seq) } });
    if (result.isError || result.content?.[0]?.type !== 'text') throw new Error(`${tool} failed`);
}

function summary(latencies, errors, ms, cpuMicros) {
    const sorted = Float64Array.from(latencies).sort();
    const at = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
    const seconds = ms / 1000;
    return { calls: sorted.length, errors, seconds, perSecond: sorted.length / seconds, p50: at(50), p99: at(99), max: at(100), cpuPct: (cpuMicros / 1000 / ms) * 100 };
}

// A window of completed calls: latencies, errors, wall time and this process's CPU time.
function windowOf() {
    return { latencies: [], errors: 0, t0: performance.now(), cpu0: process.cpuUsage() };
}
function closeWindow(w) {
    const cpu = process.cpuUsage(w.cpu0);
    return summary(w.latencies, w.errors, performance.now() - w.t0, cpu.user + cpu.system);
}

let window = windowOf();
let looping = false;
let loops = [];

async function caller(client, tool, until) {
    while (looping && (until === undefined || performance.now() < until)) {
        const t = performance.now();
        try {
            await call(client, tool);
            window.latencies.push(performance.now() - t);
        } catch {
            window.errors++;
            if (stopping) return;
        }
    }
}

const tools = (i) => config.tools[i % config.tools.length];
const commands = {
    loop({ callers = 1 }) {
        looping = true;
        window = windowOf();
        loops = clients.flatMap((client, i) => Array.from({ length: callers }, () => caller(client, tools(i))));
        return { looping: true };
    },
    report() {
        const result = closeWindow(window);
        window = windowOf();
        return result;
    },
    async halt() {
        looping = false;
        await Promise.all(loops);
        return { halted: true };
    },
    async run({ callers = 1, seconds = 1 }) {
        looping = true;
        window = windowOf();
        const until = performance.now() + seconds * 1000;
        await Promise.all(Array.from({ length: callers }, () => caller(clients[0], tools(0), until)));
        looping = false;
        return closeWindow(window);
    },
    async trace({ calls = 100 }) {
        const rows = [];
        for (let seq = 1; seq <= calls; seq++) {
            const t0 = now();
            await call(clients[0], tools(0), seq);
            rows.push([seq, t0, fetchSeen.get(seq) ?? null, now()]);
            fetchSeen.delete(seq);
        }
        return { trace: rows };
    },
    stop() {
        void stop('asked');
        return null;
    },
};

const t0 = performance.now();
for (let i = 0; i < config.clients; i++) clients.push(await connect());
const connectMs = performance.now() - t0;
await Promise.all(clients.map(async (client, i) => {
    for (let k = 0; k < config.warmupCalls; k++) await call(client, tools(i));
}));
out({ ready: true, clients: clients.length, connectMs, pid: process.pid });

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
    if (!line.trim()) return;
    const command = JSON.parse(line);
    const handler = commands[command.cmd];
    if (!handler) return out({ error: `unknown command ${command.cmd}` });
    const answer = await handler(command);
    if (answer) out(answer);
});
lines.on('close', () => void stop('stdin closed'));
