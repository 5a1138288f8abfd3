// End to end: hot reload of mcp.json and the Runtime Scope `.env`, through the real CLI.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { FIXTURE_SERVER, poll, runCli, type Service, startService, writeConfig } from '../helpers/service.ts';
import { CHANGE_DEBOUNCE_MS } from '../../lib/hub/notifier.ts';
import { descendantsOf } from '../../lib/shared/proc-stat.ts';

const node = process.execPath;
const fixture = (extra: Record<string, unknown>) => ({ command: node, args: [FIXTURE_SERVER], ...extra });
const servers = {
  alpha: fixture({ env: { VALUE: '${ALPHA}' } }),
  beta: fixture({ env: { VALUE: '${BETA}' } }),
  delta: fixture({ env: ['DELTA'] }),
  plain: fixture({ tags: ['one'] }),
};

let svc: Service;
let envFile: string;
let client: V1Client;
let changes = 0;

async function pids(): Promise<Record<string, number | null>> {
  const answer = await callControl(socketPath(svc.dir), 'status', {});
  if (!answer.ok) throw new Error(answer.error.message);
  return Object.fromEntries((answer.result as { servers: { name: string; pid: number | null; status: string }[] }).servers.map((s) => [s.name, s.status === 'connected' ? s.pid : null]));
}

/** The names of the connected backends, sorted and joined with commas. */
function connectedNames(byName: Record<string, number | null>): string {
  return Object.entries(byName).filter(([, pid]) => pid !== null).map(([name]) => name).sort().join();
}

/** Waits until exactly `changed` have new pids (all connected) and returns the new pids. */
async function expectRestarted(before: Record<string, number | null>, changed: string[], what: string) {
  const after = await poll(async () => {
    const now = await pids();
    const done = Object.keys(before).every((name) => now[name] !== null && (changed.includes(name) ? now[name] !== before[name] : true));
    return done && now;
  }, what);
  await new Promise((r) => setTimeout(r, 700)); // anything else that would restart has had time to
  const settled = await pids();
  for (const name of Object.keys(before)) {
    if (changed.includes(name)) assert.is.not(settled[name], before[name], `${name} restarted (${what})`);
    else assert.is(settled[name], before[name], `${name} kept its process (${what})`);
  }
  return after;
}

async function envOf(name: string): Promise<Record<string, string>> {
  const result = await client.callTool({ name: `${name}_agent_env`, arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

const R = suite('e2e config reload');

R.before(async () => {
  svc = await startService({ config: { mcpServers: servers }, args: ['--health-rate-limit', '0'] });
  envFile = path.join(svc.dir, '.env');
  // .env must appear after the first load, or that load may read it half written.
  await svc.waitForLog((l) => l.msg === 'configuration loaded' && l.reason === 'startup');
  fs.writeFileSync(envFile, 'ALPHA=a1\nBETA=b1\nDELTA=d1\nAGENT_HEALTH_INFO_LEVEL=full\n');
  // The service started before .env existed: alpha and beta were invalid (undefined variables).
  await svc.waitFor(async () => Object.values(await pids()).every((p) => p !== null) && true, 'all four running after .env appeared');
  client = new V1Client({ name: 'e2e-reload', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
  await client.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  await new Promise((r) => setTimeout(r, 300));
});

R.after(async () => {
  await client?.close();
  await svc.stop();
});

R('e2e config reload :: .env values reach only the backends that declare them; never the service itself', async () => {
  assert.is((await envOf('alpha')).VALUE, 'a1');
  assert.is((await envOf('delta')).DELTA, 'd1');
  const plain = await envOf('plain');
  for (const key of ['ALPHA', 'BETA', 'DELTA', 'VALUE', 'AGENT_HEALTH_INFO_LEVEL']) assert.not.ok(key in plain, `${key} leaked into an unrelated backend`);
  assert.equal(Object.keys((await svc.get('/health')).body.system), ['uptime'], '.env cannot configure AGENT_* options');
});

R('e2e config reload :: editing .env restarts exactly the backends whose variables changed', async () => {
  const before = await pids();
  fs.writeFileSync(envFile, 'ALPHA=a2\nBETA=b1\nDELTA=d1\n');
  await expectRestarted(before, ['alpha'], '.env edit');
  assert.is((await envOf('alpha')).VALUE, 'a2');
});

R('e2e config reload :: an atomically replaced .env restarts exactly the affected backend', async () => {
  const before = await pids();
  fs.writeFileSync(`${envFile}.tmp`, 'ALPHA=a2\nBETA=b2\nDELTA=d1\n');
  fs.renameSync(`${envFile}.tmp`, envFile);
  await expectRestarted(before, ['beta'], '.env replace');
});

R('e2e config reload :: a malformed .env is rejected and everything keeps running', async () => {
  const before = await pids();
  fs.writeFileSync(envFile, 'ALPHA=a3\nthis line is not an assignment\n');
  const line = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('configuration rejected') && l.file === envFile);
  assert.is(line.line, 2);
  assert.is(line.code, 'invalid_config', "the catalogue's code");
  assert.equal(await pids(), before);
  assert.is((await envOf('alpha')).VALUE, 'a2', 'the last working environment stays active');
});

R('e2e config reload :: deleting .env, then creating it again', async () => {
  let before = await pids();
  fs.rmSync(envFile);
  // alpha and beta now reference undefined variables: invalid, so they keep their last good
  // configuration; delta's bare DELTA simply disappears, so delta restarts without it.
  await expectRestarted(before, ['delta'], '.env delete');
  assert.not.ok('DELTA' in (await envOf('delta')));
  const ignored = svc.logs.find((l) => l.msg === 'invalid server entry ignored: the last good configuration keeps running' && l.backend === 'alpha');
  assert.is(ignored?.code, 'undefined_variable', 'the line carries the catalogue code of its problem');
  before = await pids();
  fs.writeFileSync(envFile, 'ALPHA=a2\nBETA=b2\nDELTA=d2\n');
  await expectRestarted(before, ['delta'], '.env create');
  assert.is((await envOf('delta')).DELTA, 'd2');
});

R('e2e config reload :: a call in flight when its server\'s entry changes fails saying so (not as a crash)', async () => {
  const before = await pids();
  const call = client.callTool({ name: 'beta_agent_slow', arguments: { steps: 40, delayMs: 250 } }).then(
    () => 'answered',
    (error: Error) => error.message,
  );
  await new Promise((r) => setTimeout(r, 400));
  writeConfig(svc.configFile, { mcpServers: { ...servers, beta: fixture({ env: { VALUE: '${BETA}', EXTRA: 'first' } }) } });
  const failure = await call;
  assert.ok(/backend 'beta' is restarting for a change to its configuration; the request was not completed and is not replayed/.test(failure), failure);
  await expectRestarted(before, ['beta'], 'mcp.json edit under a call');
});

R('e2e config reload :: editing one server in mcp.json (atomic rename) restarts only that one', async () => {
  const before = await pids();
  writeConfig(svc.configFile, { mcpServers: { ...servers, beta: fixture({ env: { VALUE: '${BETA}', EXTRA: 'yes' } }) } });
  await expectRestarted(before, ['beta'], 'mcp.json edit');
  assert.is((await envOf('beta')).EXTRA, 'yes');
});

R('e2e config reload :: a metadata-only edit keeps the process and notifies clients', async () => {
  const before = await pids();
  const seen = changes;
  writeConfig(svc.configFile, { mcpServers: { ...servers, beta: fixture({ env: { VALUE: '${BETA}', EXTRA: 'yes' } }), plain: fixture({ tags: ['two'], disabledTools: ['add'] }) } });
  await poll(async () => changes > seen, 'list_changed after a metadata edit');
  assert.equal(await pids(), before);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.not.ok(tools.includes('plain_agent_add'), 'the disabled tool is gone');
  assert.ok(tools.includes('plain_agent_echo'));
  const refused = await client.callTool({ name: 'plain_agent_add', arguments: { a: 1, b: 2 } }).then(() => 'ran', (e: Error) => e.message);
  assert.match(refused, /Tool plain_agent_add is disabled by mcpServers\.plain\.disabledTools; enable it with `agent mcp tools enable plain add`/);
});

R('e2e config reload :: a malformed mcp.json keeps the last good configuration, reported with line and column; valid again is logged', async () => {
  const before = await pids();
  const good = fs.readFileSync(svc.configFile, 'utf8');
  fs.writeFileSync(svc.configFile, '{ "mcpServers": { "alpha": ');
  const line = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('configuration rejected') && l.file === svc.configFile);
  assert.is(line.line, 1);
  assert.match(String(line.msg), /the last good configuration stays active/);
  const health = await svc.get('/health');
  assert.is(health.body.configuration.loaded, true);
  assert.equal(await pids(), before);
  writeConfig(svc.configFile, good);
  // This file's recovery (an earlier test's .env had its own).
  const valid = await svc.waitForLog((l) => l.msg === `configuration is valid again (${svc.configFile} was rejected)`);
  assert.is(valid.file, svc.configFile);
  assert.equal(valid.rejectedFiles, [svc.configFile]);
  assert.is(typeof valid.rejectedSince, 'string');
  assert.equal(await pids(), before, 'the same content again restarts nothing');
});

R('e2e config reload :: a Kubernetes-style symlink swap is picked up', async () => {
  const dataA = path.join(svc.dir, '..2026_a');
  fs.mkdirSync(dataA);
  fs.writeFileSync(path.join(dataA, 'mcp.json'), JSON.stringify({ mcpServers: { plain: fixture({}) } }));
  fs.symlinkSync('..2026_a', path.join(svc.dir, '..data_tmp'));
  fs.renameSync(path.join(svc.dir, '..data_tmp'), path.join(svc.dir, '..data'));
  fs.rmSync(svc.configFile);
  fs.symlinkSync('..data/mcp.json', svc.configFile);
  await poll(async () => {
    const names = Object.keys(await pids());
    return names.length === 1 && names[0] === 'plain';
  }, 'the swapped-in configuration');
  const dataB = path.join(svc.dir, '..2026_b');
  fs.mkdirSync(dataB);
  fs.writeFileSync(path.join(dataB, 'mcp.json'), JSON.stringify({ mcpServers: { plain: fixture({}), other: fixture({}) } }));
  fs.symlinkSync('..2026_b', path.join(svc.dir, '..data_tmp'));
  fs.renameSync(path.join(svc.dir, '..data_tmp'), path.join(svc.dir, '..data'));
  // Connected, not only configured: a backend still connecting would announce its lists during a later test.
  await poll(async () => connectedNames(await pids()) === 'other,plain', 'the second swap');
});

R('e2e config reload :: agent mcp reload forces a reload; status --verbose shows the effective configuration', async () => {
  const reload = await runCli(['mcp', 'reload', '--config', svc.configFile]);
  assert.is(reload.code, 0, reload.stderr);
  assert.match(reload.stdout, /loaded 2 servers/);
  const verbose = await runCli(['mcp', 'status', '--verbose', '--config', svc.configFile]);
  assert.is(verbose.code, 0);
  assert.match(verbose.stdout, /Live status of the service/);
  assert.match(verbose.stdout, /Effective configuration/);
  assert.match(verbose.stdout, /\n {3}command: /);
});

R('e2e config reload :: a backend with tools only connecting sends tools/list_changed, not prompts or resources', async () => {
  // Every backend configured so far is connected and its lists announced (past the notifier's debounce) before counting starts.
  await poll(async () => Object.values(await pids()).every((pid) => pid !== null), 'every backend connected');
  await new Promise((r) => setTimeout(r, 3 * CHANGE_DEBOUNCE_MS));
  let prompts = 0;
  let resources = 0;
  client.setNotificationHandler(PromptListChangedNotificationSchema, async () => void prompts++);
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => void resources++);
  const seen = changes;
  const current = JSON.parse(fs.readFileSync(svc.configFile, 'utf8'));
  writeConfig(svc.configFile, { mcpServers: { ...current.mcpServers, toolsonly: { command: node, args: [path.join(path.dirname(FIXTURE_SERVER), 'backends/ignores-stdin-eof.mjs')] } } });
  await poll(async () => changes > seen, 'tools/list_changed for the new backend');
  await new Promise((r) => setTimeout(r, 500));
  assert.is(prompts, 0, 'no prompts/list_changed');
  assert.is(resources, 0, 'no resources/list_changed');
});

R('e2e config reload :: a session filtered by tags hears list_changed only for lists its filter shows', async () => {
  const current = JSON.parse(fs.readFileSync(svc.configFile, 'utf8'));
  writeConfig(svc.configFile, { mcpServers: { ...current.mcpServers, zoned: fixture({ tags: ['zone'] }) } });
  await poll(async () => (await pids()).zoned != null, 'the tagged backend connected');
  await new Promise((r) => setTimeout(r, 3 * CHANGE_DEBOUNCE_MS));
  const filtered = new V1Client({ name: 'e2e-reload-tags', version: '1.0.0' });
  let filteredChanges = 0;
  filtered.setNotificationHandler(ToolListChangedNotificationSchema, async () => void filteredChanges++);
  await filtered.connect(new V1HttpTransport(new URL(`${svc.base}/mcp?tags=zone`)));
  try {
    const serversListed = async () => [...new Set((await filtered.listTools()).tools.map((t) => t.name.split('_agent_')[0]))].sort();
    assert.equal(await serversListed(), ['zoned'], 'it sees the tagged backend only');
    // A backend outside the filter: the unfiltered session is told, the filtered one is not.
    let seen = changes;
    writeConfig(svc.configFile, { mcpServers: { ...current.mcpServers, zoned: fixture({ tags: ['zone'] }), untagged: fixture({}) } });
    await poll(async () => changes > seen, 'tools/list_changed for the unfiltered session');
    await new Promise((r) => setTimeout(r, 500));
    assert.is(filteredChanges, 0, 'no list_changed for a list the filter does not show');
    // One inside it: both are told, and the filtered list has it.
    seen = changes;
    writeConfig(svc.configFile, { mcpServers: { ...current.mcpServers, zoned: fixture({ tags: ['zone'] }), untagged: fixture({}), zoned2: fixture({ tags: ['zone'] }) } });
    await poll(async () => changes > seen && filteredChanges > 0, 'tools/list_changed on both sessions');
    assert.equal(await serversListed(), ['zoned', 'zoned2']);
  } finally {
    await filtered.close();
  }
});

R('e2e config reload :: run as npm start runs it (under tsx), loads and restarts leave no zombie child (a worker\'s tsx left an esbuild one each)', async () => {
  const current = JSON.parse(fs.readFileSync(svc.configFile, 'utf8'));
  const loaded = () => svc.logs.filter((l) => l.msg === 'configuration loaded').length;
  for (const tag of ['z1', 'z2', 'z3']) {
    const before = loaded();
    writeConfig(svc.configFile, { mcpServers: { ...current.mcpServers, plain: fixture({ tags: [tag] }) } });
    await poll(async () => loaded() > before, `the load with tag ${tag}`);
  }
  await new Promise((r) => setTimeout(r, 500)); // the configuration worker has ended
  const zombies = descendantsOf(svc.child.pid!).filter((stat) => stat.state === 'Z');
  assert.equal(zombies, []);
});

R.run();
