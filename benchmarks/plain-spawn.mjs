// The yardstick for start-up time: a plain script that spawns N backends and initializes each
// with the v2 SDK client over stdio, all in parallel. Prints {"count","connectMs","sinceProcessStartMs"}
// once all are ready, then closes them all and exits.
//
// `--handshake initialize` (the default, the yardstick of issue 14's ready target) stops after a
// legacy initialize. `--handshake service` brings each backend as far as the service must before
// it calls a backend healthy: the service's version negotiation (`--negotiation`, the service's
// default `auto`), then the lists its capabilities announce (tools, resources, prompts, resource
// templates), in parallel (benchmarks/README.md, "The ready target's yardstick").
// Usage: node benchmarks/plain-spawn.mjs [--handshake service|initialize] [--negotiation auto|legacy|2026-07-28]
//                                        <count> <fixture.mjs> [extra fixture args...]
import './lib/abort-warnings.mjs'; // before any client
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { handshakeOptions, negotiationMode, readLists } from './lib/handshake.mjs';

const argv = process.argv.slice(2);
const { handshake, negotiation } = handshakeOptions(argv);
const count = Number(argv[0]);
const fixture = argv[1];
const extra = argv.slice(2);

const t0 = performance.now();
const clients = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
        const client = new Client({ name: 'plain-spawn', version: '1.0.0' }, { versionNegotiation: { mode: negotiationMode(negotiation) } });
        const transport = new StdioClientTransport({
            command: process.execPath,
            args: [fixture, ...extra],
            env: { ...getDefaultEnvironment(), FIXTURE_NAME: `p${i}` },
            stderr: 'ignore'
        });
        await client.connect(transport);
        if (handshake === 'service') await readLists(client);
        return client;
    })
);
const now = performance.now();
process.stdout.write(`${JSON.stringify({ count, handshake, negotiation, connectMs: now - t0, sinceProcessStartMs: now })}\n`);
await Promise.all(clients.map(client => client.close()));
