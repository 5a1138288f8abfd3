// End to end: --backends-per-worker 3 runs four backends in two worker threads. Every backend
// connects and answers tool calls through /mcp; one stopped (removed from mcp.json) leaves its
// worker-mate running; each backend keeps its own child process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { FIXTURE_SERVER, type Service, startService, writeConfig } from '../helpers/service.ts';

const server = (name: string) => ({ command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: name } });
const servers = (...names: string[]) => ({ mcpServers: Object.fromEntries(names.map((n) => [n, server(n)])) });

const E = suite('e2e backends per worker');
let svc: Service;

E.before(async () => {
  svc = await startService({ config: servers('a', 'b', 'c', 'd'), args: ['--backends-per-worker', '3', '--no-reload', '--health-rate-limit', '0'] });
});

E.after(async () => {
  await svc.stop();
});

const healthy = async (n: number) => ((await svc.get('/health')).body?.servers?.healthy === n ? true : false);

E('e2e backends per worker :: four backends in two workers all serve; removing one leaves the others', async () => {
  await svc.waitFor(() => healthy(4), 'four backends healthy', 30_000);
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  try {
    const pids = new Set<string>();
    for (const name of ['a', 'b', 'c', 'd']) {
      assert.equal((await client.callTool({ name: `${name}_agent_echo`, arguments: { text: name } })).content, [{ type: 'text', text: name }]);
      pids.add(JSON.stringify((await client.callTool({ name: `${name}_agent_pid`, arguments: {} })).content));
    }
    assert.is(pids.size, 4, 'a child process per backend');

    writeConfig(svc.configFile, servers('a', 'c', 'd'));
    const reload = await callControl(socketPath(svc.dir), 'reload', {});
    assert.ok(reload.ok, 'reloaded');
    await svc.waitFor(async () => ((await svc.get('/health')).body?.servers?.total === 3 ? true : false), 'b removed');
    assert.ok(await healthy(3), 'a, b\'s worker-mate, still healthy');
    assert.equal((await client.callTool({ name: 'a_agent_echo', arguments: { text: 'still' } })).content, [{ type: 'text', text: 'still' }]);
  } finally {
    await client.close();
  }
});

E.run();
