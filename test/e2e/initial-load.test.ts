// End to end: at start, clients are answered only once every backend's first attempt ended
// (bounded by --initial-wait), so a one-shot client sees every tool (issue 12, item 5).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { backendFixture, FIXTURE_SERVER, ROOT, startService, tempDir, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
const SLOW = path.join(ROOT, 'test/fixtures/backends/slow-to-start.mjs');
const servers = {
  fixture: { command: node, args: [FIXTURE_SERVER] },
  slow: { command: node, args: [SLOW, '1500'] },
};
const names = (tools: { name: string }[]) => tools.map((t) => t.name);

const T = suite('e2e initial load');

T('initial load :: stdio: initialize then tools/list at once lists every backend, the slow one too', async () => {
  const configFile = path.join(tempDir(), 'mcp.json');
  writeConfig(configFile, { mcpServers: servers });
  for (const mode of ['legacy', 'auto'] as const) {
    const transport = new StdioClientTransport({
      command: node,
      args: ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', configFile],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'one-shot', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(transport);
    const tools = names((await client.listTools()).tools);
    assert.ok(tools.includes('slow_agent_echo') && tools.includes('fixture_agent_echo'), `${mode}: ${tools.join(', ')}`);
    assert.equal((await client.callTool({ name: 'slow_agent_echo', arguments: { text: 'first' } })).content, [{ type: 'text', text: 'first' }]);
    await client.close();
  }
});

T('initial load :: HTTP right after start: lists and calls wait for the slow backend, in both eras', async () => {
  const svc = await startService({ config: { mcpServers: servers }, args: ['--health-rate-limit', '0'] });
  try {
    const modern = new Client({ name: 'one-shot', version: '1.0.0' });
    const legacy = new V1Client({ name: 'one-shot-v1', version: '1.0.0' });
    const call = new Client({ name: 'caller', version: '1.0.0' });
    // All three right after `listening`, while the slow backend is still starting.
    const [modernTools, legacyTools, echoed] = await Promise.all([
      modern.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`))).then(async () => names((await modern.listTools()).tools)),
      legacy.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`))).then(async () => names((await legacy.listTools()).tools)),
      call.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`))).then(() => call.callTool({ name: 'slow_agent_echo', arguments: { text: 'early' } })),
    ]);
    assert.ok(modernTools.includes('slow_agent_echo'), `2026-07-28: ${modernTools.join(', ')}`);
    assert.ok(legacyTools.includes('slow_agent_echo'), `2025: ${legacyTools.join(', ')}`);
    assert.equal(echoed.content, [{ type: 'text', text: 'early' }], 'a call to a backend on its first connect waited for it');
    await Promise.all([modern.close(), legacy.close(), call.close()]);
  } finally {
    await svc.stop();
  }
});

T('initial load :: --initial-wait bounds the wait: a backend that never answers is left out, and the log says so', async () => {
  const svc = await startService({
    config: { mcpServers: { fixture: servers.fixture, hangs: { command: node, args: [backendFixture('hangs-on-initialize.mjs')], connectionTimeout: 30_000 } } },
    args: ['--health-rate-limit', '0', '--initial-wait', '6000'],
  });
  try {
    const client = new Client({ name: 'one-shot', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
    const tools = names((await client.listTools()).tools);
    assert.ok(tools.includes('fixture_agent_echo'));
    assert.not.ok(tools.some((t) => t.startsWith('hangs_agent_')));
    const line = await svc.waitForLog((l) => l.msg === 'initial wait over: clients are answered with the backends connected so far');
    assert.equal(line.stillConnecting, ['hangs']);
    await client.close();
  } finally {
    await svc.stop();
  }
});

T.run();
