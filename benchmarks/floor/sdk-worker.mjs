// The backend side of the design at its thinnest, bundled by startup-floor.ts and compiled by
// loader.cjs with a V8 code cache as the service's backend bundle is: a worker thread whose only
// job is one SDK client over stdio to one backend, with the handshake of workerData. Posts 'up'
// once the handshake is done; closes the client and exits on any message after that.
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parentPort, workerData } from 'node:worker_threads';
import { negotiationMode, readLists } from '../lib/handshake.mjs';

(async () => {
    const { fixture, extra, name, handshake, negotiation } = workerData;
    const client = new Client({ name: 'floor', version: '1.0.0' }, { versionNegotiation: { mode: negotiationMode(negotiation) } });
    const transport = new StdioClientTransport({ command: process.execPath, args: [fixture, ...extra], env: { ...getDefaultEnvironment(), FIXTURE_NAME: name }, stderr: 'ignore' });
    await client.connect(transport);
    if (handshake === 'service') await readLists(client);
    globalThis[Symbol.for('floor.makeCache')]?.();
    parentPort.postMessage({ type: 'up' });
    parentPort.once('message', async () => {
        await client.close();
        process.exit(0);
    });
})();
