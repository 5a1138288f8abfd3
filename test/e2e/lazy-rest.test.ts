// End to end: lazy tool discovery (--lazy-tools) and the REST capability views, with real backends.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EVERYTHING_SERVER, FIXTURE_SERVER, poll, type Service, startService, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
let svc: Service;
let client: Client;

const L = suite('e2e lazy tools and REST views');

const SERVERS = {
  fixture: { command: node, args: [FIXTURE_SERVER], tags: ['local'], disabledTools: ['env'], toolDescriptionOverrides: { echo: 'Repeat the text back, verbatim.' } },
  everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'], tags: ['reference'] },
};
let toolListChanges = 0;

L.before(async () => {
  svc = await startService({
    config: { mcpServers: SERVERS },
    args: ['--lazy-tools', '--health-rate-limit', '0'],
  });
  await svc.waitFor(async () => (await svc.get('/health')).body.status === 'healthy', 'healthy');
  client = new Client({ name: 'e2e-lazy', version: '1.0.0' });
  client.setNotificationHandler('notifications/tools/list_changed', async () => void toolListChanges++);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
});

L.after(async () => {
  await client.close();
  await svc.stop();
});

const structured = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as { text: string }[])[0]!.text);

L('e2e lazy :: tools/list shows only the three meta-tools', async () => {
  assert.equal((await client.listTools()).tools.map((t) => t.name), ['tool_list', 'tool_schema', 'tool_invoke']);
});

L('e2e lazy :: tool_list filters by server, pattern and tag, applies disabledTools and overrides, and pages', async () => {
  const fixture = structured(await client.callTool({ name: 'tool_list', arguments: { server: 'fixture' } }));
  const names = fixture.tools.map((t: { tool: string }) => t.tool);
  assert.ok(names.includes('echo') && names.includes('add'));
  assert.not.ok(names.includes('env'), 'a disabled tool is not listed');
  assert.is(fixture.tools.find((t: { tool: string }) => t.tool === 'echo').description, 'Repeat the text back, verbatim.');
  const pattern = structured(await client.callTool({ name: 'tool_list', arguments: { pattern: '*get-s*' } }));
  assert.equal(pattern.tools.map((t: { name: string }) => t.name).sort(), ['everything_agent_get-structured-content', 'everything_agent_get-sum']);
  const tagged = structured(await client.callTool({ name: 'tool_list', arguments: { tag: 'LOCAL' } }));
  assert.ok(tagged.tools.every((t: { server: string }) => t.server === 'fixture'));
  const first = structured(await client.callTool({ name: 'tool_list', arguments: { limit: 5 } }));
  assert.is(first.tools.length, 5);
  assert.ok(first.nextCursor);
  const second = structured(await client.callTool({ name: 'tool_list', arguments: { limit: 5, cursor: first.nextCursor } }));
  assert.is.not(second.tools[0].name, first.tools[0].name);
  assert.is(first.total, second.total);
});

L('e2e lazy :: tool_schema and tool_invoke', async () => {
  const schema = structured(await client.callTool({ name: 'tool_schema', arguments: { server: 'fixture', tool: 'add' } }));
  assert.equal(schema.inputSchema.required, ['a', 'b']);
  assert.is(schema.name, 'fixture_agent_add');
  const sum = await client.callTool({ name: 'tool_invoke', arguments: { server: 'fixture', tool: 'add', arguments: { a: 4, b: 5 } } });
  assert.equal(sum.content, [{ type: 'text', text: '9' }]);
  // A disabled tool gets the answer a direct call gets (it was 'Unknown tool'); an unknown one, unknown_tool.
  const disabled = await client.callTool({ name: 'tool_schema', arguments: { server: 'fixture', tool: 'env' } }).then(() => 'found', (e: Error) => e.message);
  assert.match(disabled, /Tool fixture_agent_env is disabled by mcpServers\.fixture\.disabledTools/);
  const invoked = await client.callTool({ name: 'tool_invoke', arguments: { server: 'fixture', tool: 'env' } }).then(() => 'found', (e: Error) => e.message);
  assert.match(invoked, /Tool fixture_agent_env is disabled/);
  const unknown = await client.callTool({ name: 'tool_schema', arguments: { server: 'fixture', tool: 'nope' } }).then(() => 'found', (e: Error) => e.message);
  assert.match(unknown, /Unknown tool: nope on server fixture/);
});

L('e2e lazy :: a change in the tools behind tool_list is told with tools/list_changed, though the three meta-tools stay', async () => {
  const seen = toolListChanges;
  writeConfig(svc.configFile, { mcpServers: { ...SERVERS, fixture: { ...SERVERS.fixture, disabledTools: ['env', 'add'] } } });
  await poll(async () => toolListChanges > seen, 'tools/list_changed after disabling a tool');
  assert.equal((await client.listTools()).tools.map((t) => t.name), ['tool_list', 'tool_schema', 'tool_invoke']);
  const names = structured(await client.callTool({ name: 'tool_list', arguments: { server: 'fixture' } })).tools.map((t: { tool: string }) => t.tool);
  assert.not.ok(names.includes('add'), 'tool_list finds the change');
  writeConfig(svc.configFile, { mcpServers: SERVERS });
  await poll(async () => structured(await client.callTool({ name: 'tool_list', arguments: { server: 'fixture' } })).tools.some((t: { tool: string }) => t.tool === 'add'), 'add back');
});

L('e2e rest :: /api/v1/servers and /api/v1/tools with enabled flags, effective descriptions and token counts', async () => {
  const servers = (await svc.get('/api/v1/servers')).body.servers;
  const fixture = servers.find((s: { name: string }) => s.name === 'fixture');
  assert.equal({ status: fixture.status, tools: fixture.tools, enabledTools: fixture.enabledTools }, { status: 'connected', tools: 6, enabledTools: 5 });
  const { body } = await svc.get('/api/v1/tools?server=fixture');
  const env = body.tools.find((t: { name: string }) => t.name === 'env');
  assert.is(env.enabled, false);
  const echo = body.tools.find((t: { name: string }) => t.name === 'echo');
  assert.equal({ description: echo.description, upstream: echo.upstreamDescription, overridden: echo.overridden }, { description: 'Repeat the text back, verbatim.', upstream: 'Echo back the given text', overridden: true });
  assert.ok(Number.isInteger(echo.tokens) && echo.tokens > 10, `tokens ${echo.tokens}`);
  assert.is(body.totalTokens, body.tools.filter((t: { enabled: boolean }) => t.enabled).reduce((n: number, t: { tokens: number }) => n + t.tokens, 0));
  const one = await svc.get('/api/v1/tools/fixture/add');
  assert.equal(one.body.inputSchema.required, ['a', 'b']);
  assert.is((await svc.get('/api/v1/tools/fixture/nope')).status, 404);
  assert.is((await svc.get('/api/v1/tools?server=ghost')).status, 404);
});

L('e2e rest :: /api/v1/resources and /api/v1/prompts use the qualified names', async () => {
  const resources = (await svc.get('/api/v1/resources')).body;
  assert.ok(resources.resources.some((r: { uri: string }) => r.uri === 'fixture_agent_fixture://hello'));
  assert.ok(resources.resourceTemplates.length > 0);
  const prompts = (await svc.get('/api/v1/prompts')).body.prompts;
  assert.ok(prompts.some((p: { name: string; upstreamName: string }) => p.name === 'fixture_agent_greet' && p.upstreamName === 'greet'));
});

L.run();
