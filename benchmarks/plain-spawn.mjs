// The yardstick for start-up time: a plain script that spawns N backends and initializes each
// with the v2 SDK client over stdio, all in parallel (legacy negotiation: one initialize, no probe
// sibling). Prints {"count","connectMs","sinceProcessStartMs"} once all are initialized, then
// closes them all and exits.
// Usage: node benchmarks/plain-spawn.mjs <count> <fixture.mjs> [extra fixture args...]
import './lib/abort-warnings.mjs'; // before any client
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const count = Number(process.argv[2]);
const fixture = process.argv[3];
const extra = process.argv.slice(4);
const t0 = performance.now();
const clients = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
        const client = new Client({ name: 'plain-spawn', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
        const transport = new StdioClientTransport({
            command: process.execPath,
            args: [fixture, ...extra],
            env: { ...getDefaultEnvironment(), FIXTURE_NAME: `p${i}` },
            stderr: 'ignore'
        });
        await client.connect(transport);
        return client;
    })
);
const now = performance.now();
process.stdout.write(`${JSON.stringify({ count, connectMs: now - t0, sinceProcessStartMs: now })}\n`);
await Promise.all(clients.map(client => client.close()));
