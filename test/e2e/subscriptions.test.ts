// End to end (issue 15): what the gateway advertises is its backends' union, and it follows them
// (2025 sessions keep what they got at initialize); resource subscriptions are reference-counted
// per backend URI and updates reach the subscribed sessions only, under the client-facing URI;
// cache hints of aggregated lists follow the backends' (shortest ttl, public only if all are and
// the view is everyone's), and a read keeps its owner's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { FIXTURE_SERVER, poll, ROOT, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const COUNTER = path.join(ROOT, 'test/fixtures/backends/counter-with-subscriptions.mjs');
const node = process.execPath;
const CLIENT_URI = 'counter_agent_counter://value';
const MODERN_URI = 'counter-modern_agent_counter://value';

let svc: Service;
const clients: Client[] = [];

async function connect(era: 'legacy' | 'modern', query = '') {
  const updates: string[] = [];
  const client = new Client({ name: `e2e-${era}`, version: '1.0.0' }, { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } });
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp${query}`));
  await client.connect(transport);
  clients.push(client);
  return { client, updates, transport };
}

async function counterSubscriptions(client: Client, backend = 'counter') {
  const result = await client.callTool({ name: `${backend}_agent_subscriptions`, arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]!.text) as { subscribed: string[]; subscribe: number; unsubscribe: number };
}

const healthyWith = (names: string[]) =>
  svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    const details: { name: string; status: string }[] = body.servers?.details ?? [];
    return body.status === 'healthy' && details.length === names.length && names.every((n) => details.some((d) => d.name === n && d.status === 'connected')) && body;
  }, `${names.join(', ')} connected`, 30_000);

const settle = () => new Promise((r) => setTimeout(r, 300));
const S = suite('e2e subscriptions, capabilities and cache hints');

S.before(async () => {
  svc = await startService({ config: { mcpServers: { fixture: { command: node, args: [FIXTURE_SERVER] } } }, args: ['--health-rate-limit', '0', '--health-info-level', 'full'] });
  await healthyWith(['fixture']);
});

S.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await svc.stop();
});

S('e2e subscriptions :: capabilities are the backends\' union, before and after a backend with subscribe connects; a 2025 session keeps its own', async () => {
  const early = await connect('legacy');
  const before = early.client.getServerCapabilities()!;
  assert.ok(before.tools && before.resources && before.prompts && before.logging, 'what the fixture offers');
  assert.is(before.resources!.subscribe, undefined, 'no backend offers subscribe yet');
  assert.is((await connect('modern')).client.getServerCapabilities()!.resources!.subscribe, undefined);

  writeConfig(svc.configFile, { mcpServers: { counter: { command: node, args: [COUNTER], protocolVersion: 'legacy' }, 'counter-modern': { command: node, args: [COUNTER], protocolVersion: '2026-07-28' } } });
  await healthyWith(['counter', 'counter-modern']);
  const modern = (await connect('modern')).client.getServerCapabilities()!;
  assert.equal(modern.resources, { listChanged: true, subscribe: true }, 'server/discover follows the backends');
  assert.ok(modern.tools);
  assert.is(modern.prompts, undefined, 'no backend offers prompts any more');
  assert.is(modern.logging, undefined);
  const late = (await connect('legacy')).client.getServerCapabilities()!;
  assert.equal(late.resources, { listChanged: true, subscribe: true });

  // The early session was told there are no subscriptions: it keeps that set.
  const refused = await early.client.subscribeResource({ uri: CLIENT_URI }).then(() => null, (e: { code?: number }) => e);
  assert.is(refused?.code, -32601);
});

S('e2e subscriptions :: two sessions subscribe to one backend resource: the backend is asked once, updates reach the subscribers only, unsubscribe and session end let go', async () => {
  const a = await connect('legacy');
  const b = await connect('legacy');
  const bystander = await connect('legacy');
  await a.client.subscribeResource({ uri: CLIENT_URI });
  await b.client.subscribeResource({ uri: CLIENT_URI });
  let seen = await counterSubscriptions(a.client);
  assert.equal(seen.subscribed, ['counter://value']);
  assert.is(seen.subscribe, 1, 'reference-counted: the backend was asked once');

  await a.client.callTool({ name: 'counter_agent_bump', arguments: {} });
  await poll(async () => a.updates.length === 1 && b.updates.length === 1, 'both subscribers told');
  assert.equal(a.updates, [CLIENT_URI], 'under the client-facing URI');
  await settle();
  assert.is(bystander.updates.length, 0, 'a session that did not subscribe hears nothing');

  await a.client.unsubscribeResource({ uri: CLIENT_URI });
  seen = await counterSubscriptions(a.client);
  assert.is(seen.unsubscribe, 0, 'b still holds it');
  await b.client.callTool({ name: 'counter_agent_bump', arguments: {} });
  await poll(async () => b.updates.length === 2, 'b told again');
  await settle();
  assert.is(a.updates.length, 1, 'a unsubscribed');

  // The last subscriber's session ends (DELETE): the backend is let go.
  await b.transport.terminateSession();
  await b.client.close();
  seen = await poll(async () => {
    const now = await counterSubscriptions(a.client);
    return now.unsubscribe === 1 && now;
  }, 'the backend unsubscribed');
  assert.equal(seen.subscribed, []);

  // An unknown resource is an error naming it.
  const unknown = await a.client.subscribeResource({ uri: 'nobody_agent_x://y' }).then(() => null, (e: Error) => e);
  assert.match(String(unknown?.message), /nobody_agent_x:\/\/y/);
});

S('e2e subscriptions :: a 2026-07-28 backend is subscribed through subscriptions/listen, and its updates reach a 2025 session', async () => {
  const a = await connect('legacy');
  await a.client.subscribeResource({ uri: 'counter-modern_agent_counter://value' });
  await a.client.callTool({ name: 'counter-modern_agent_bump', arguments: {} });
  await poll(async () => a.updates.includes('counter-modern_agent_counter://value'), 'the update from the 2026-07-28 backend');
});

S('e2e subscriptions :: 2026-07-28 listen streams with resourceSubscriptions: acknowledged as far as they can be served, an update reaches only the stream subscribed to it, the stream ending lets the backend go', async () => {
  const a = await connect('modern');
  const b = await connect('modern');
  const before = await counterSubscriptions(a.client);
  const listenA = await a.client.listen({ resourceSubscriptions: [CLIENT_URI, 'nobody_agent_x://y', 'not-qualified://z'] });
  const listenB = await b.client.listen({ toolsListChanged: true, resourceSubscriptions: [MODERN_URI] });
  assert.equal(listenA.honoredFilter, { resourceSubscriptions: [CLIENT_URI] }, 'URIs it cannot serve are left out of the acknowledgement');
  assert.equal(listenB.honoredFilter, { toolsListChanged: true, resourceSubscriptions: [MODERN_URI] });
  let seen = await counterSubscriptions(a.client);
  assert.equal(seen.subscribed, ['counter://value']);
  assert.is(seen.subscribe, before.subscribe + 1, 'the backend was asked');

  // A 2025 session on the same resource shares the subscription: the backend is not asked again.
  const legacy = await connect('legacy');
  await legacy.client.subscribeResource({ uri: CLIENT_URI });
  assert.is((await counterSubscriptions(a.client)).subscribe, before.subscribe + 1, 'reference-counted across eras');

  await a.client.callTool({ name: 'counter_agent_bump', arguments: {} });
  await poll(async () => a.updates.length === 1 && legacy.updates.length === 1, 'the update on the listen stream and the 2025 session');
  assert.equal(a.updates, [CLIENT_URI], 'under the client-facing URI, once');
  await b.client.callTool({ name: 'counter-modern_agent_bump', arguments: {} });
  await poll(async () => b.updates.length === 1, 'the update of the other resource on the other stream');
  assert.equal(b.updates, [MODERN_URI]);
  await settle();
  assert.equal(a.updates, [CLIENT_URI], 'a stream hears only the resources it named');
  assert.equal(b.updates, [MODERN_URI]);

  // The stream ends (the client closes it): its subscription goes; the 2025 session still holds the resource.
  await listenA.close();
  await settle();
  assert.is((await counterSubscriptions(a.client)).unsubscribe, before.unsubscribe, 'the 2025 session still holds it');
  await a.client.callTool({ name: 'counter_agent_bump', arguments: {} });
  await poll(async () => legacy.updates.length === 2, 'the 2025 session told again');
  await settle();
  assert.is(a.updates.length, 1, 'the closed stream hears nothing more');
  await legacy.client.unsubscribeResource({ uri: CLIENT_URI });
  seen = await poll(async () => {
    const now = await counterSubscriptions(a.client);
    return now.unsubscribe === before.unsubscribe + 1 && now;
  }, 'the backend unsubscribed');
  assert.equal(seen.subscribed, []);

  // A listener that goes away without closing (its connection ends) lets go too.
  const c = await connect('modern');
  await c.client.listen({ resourceSubscriptions: [CLIENT_URI] });
  assert.equal((await counterSubscriptions(a.client)).subscribed, ['counter://value']);
  await c.client.close();
  await poll(async () => (await counterSubscriptions(a.client)).subscribed.length === 0, 'the backend let go after the client left');
  await listenB.close();
});

S('e2e subscriptions :: a 2026-07-28 backend without subscribe support refuses: its URI is left out of a listen acknowledgement, and a 2025 subscribe gets -32601', async () => {
  const HELLO = 'fixture_agent_fixture://hello';
  const counters = { counter: { command: node, args: [COUNTER], protocolVersion: 'legacy' }, 'counter-modern': { command: node, args: [COUNTER], protocolVersion: '2026-07-28' } };
  // The fixture (auto: 2026-07-28) has no subscribe support; the counters make the gateway offer subscribe.
  writeConfig(svc.configFile, { mcpServers: { ...counters, fixture: { command: node, args: [FIXTURE_SERVER] } } });
  await healthyWith(['counter', 'counter-modern', 'fixture']);
  const modern = await connect('modern');
  const listen = await modern.client.listen({ resourceSubscriptions: [HELLO] });
  assert.equal(listen.honoredFilter, {}, 'not acknowledged: no update would ever come');
  await listen.close();
  const legacy = await connect('legacy');
  const refused = await legacy.client.subscribeResource({ uri: HELLO }).then(
    () => null,
    (error: { code?: number; message: string }) => error,
  );
  assert.ok(refused, 'the subscribe is refused');
  assert.is(refused.code, -32601, refused.message);
  assert.ok(/Backend 'fixture' does not offer updates of .*: its acknowledgement of subscriptions\/listen left it out/.test(refused.message), refused.message);
  writeConfig(svc.configFile, { mcpServers: counters });
  await healthyWith(['counter', 'counter-modern']);
});

S('e2e subscriptions :: a backend restart re-establishes its subscriptions: updates after the reconnect reach the subscribed 2025 session', async () => {
  const session = await connect('legacy');
  await session.client.subscribeResource({ uri: CLIENT_URI });
  await session.client.subscribeResource({ uri: MODERN_URI });
  for (const server of ['counter', 'counter-modern']) await callControl(socketPath(svc.dir), 'restart', { server }, { timeoutMs: 30_000 });
  await healthyWith(['counter', 'counter-modern']);
  // The new process was asked again (a 2025 backend counts resources/subscribe; the 2026-07-28 one is listened to).
  const seen = await poll(async () => {
    const now = await counterSubscriptions(session.client);
    return now.subscribed.includes('counter://value') && now;
  }, 'the restarted backend subscribed again');
  assert.is(seen.subscribe, 1, 'a fresh process, asked once');
  for (const [backend, uri] of [['counter', CLIENT_URI], ['counter-modern', MODERN_URI]] as const) {
    // The 2026-07-28 backend's listen stream is opened after its reconnect: bump until an update arrives.
    await poll(async () => {
      await session.client.callTool({ name: `${backend}_agent_bump`, arguments: {} });
      await settle();
      return session.updates.includes(uri);
    }, `the update of ${backend} after its restart`);
  }
});

S('e2e subscriptions :: cache hints: the shortest ttl of the backends a list draws from; public only if all are and the view is everyone\'s; a read keeps its owner\'s', async () => {
  // Both counters say public; the legacy one gives no hint (2025): the list is not cacheable.
  const mixed = await connect('modern');
  const both = (await mixed.client.listTools(undefined, { cacheMode: 'bypass' })) as unknown as { ttlMs: number; cacheScope: string };
  assert.equal([both.ttlMs, both.cacheScope], [0, 'private']);

  writeConfig(svc.configFile, { mcpServers: { 'counter-modern': { command: node, args: [COUNTER], protocolVersion: '2026-07-28', tags: ['modern'] } } });
  await healthyWith(['counter-modern']);
  const only = await connect('modern');
  const tools = (await only.client.listTools(undefined, { cacheMode: 'bypass' })) as unknown as { ttlMs: number; cacheScope: string };
  assert.equal([tools.ttlMs, tools.cacheScope], [60_000, 'public']);
  const resources = (await only.client.listResources(undefined, { cacheMode: 'bypass' })) as unknown as { ttlMs: number; cacheScope: string };
  assert.equal([resources.ttlMs, resources.cacheScope], [30_000, 'public']);
  const read = (await only.client.readResource({ uri: 'counter-modern_agent_counter://value' }, { cacheMode: 'bypass' })) as unknown as { ttlMs: number; cacheScope: string };
  assert.equal([read.ttlMs, read.cacheScope], [1_000, 'private'], 'the owning backend\'s hint');

  const filtered = await connect('modern', '?tags=modern');
  const view = (await filtered.client.listTools(undefined, { cacheMode: 'bypass' })) as unknown as { ttlMs: number; cacheScope: string };
  assert.equal([view.ttlMs, view.cacheScope], [60_000, 'private'], 'a tag-filtered view is the asker\'s own');
});

S.run();

// ---------------------------------------------------------------------------------------------
const Stdio = suite('e2e subscriptions (stdio serve mode)');

Stdio('e2e subscriptions :: over stdio, a 2026-07-28 listen stream with resourceSubscriptions is acknowledged, gets the update, and a cancelled listen lets the backend go', async () => {
  const configFile = path.join(tempDir(), 'mcp.json');
  writeConfig(configFile, { mcpServers: { counter: { command: node, args: [COUNTER], protocolVersion: 'legacy' } } });
  const transport = new StdioClientTransport({
    command: node,
    args: ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'serve', '--transport', 'stdio', '--no-http', '--config', configFile],
    cwd: ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-stdio-listen', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  try {
    await client.connect(transport);
    const listening = await client.listen({ resourceSubscriptions: [CLIENT_URI, 'nobody_agent_x://y'] });
    assert.equal(listening.honoredFilter, { resourceSubscriptions: [CLIENT_URI] });
    assert.equal((await counterSubscriptions(client)).subscribed, ['counter://value']);
    await client.callTool({ name: 'counter_agent_bump', arguments: {} });
    await poll(async () => updates.length === 1, 'the update on the stdio listen stream');
    assert.equal(updates, [CLIENT_URI]);
    await listening.close();
    await poll(async () => (await counterSubscriptions(client)).subscribed.length === 0, 'the backend let go');
  } finally {
    await client.close();
  }
});

Stdio.run();
