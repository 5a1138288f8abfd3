// End to end: the real CLI, real backend processes, real sockets.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { descendants, isAlive, processesWith } from '../helpers/processes.ts';
import { backendFixture, EVERYTHING_SERVER, FIXTURE_SERVER, runCli, type Service, startService, writeConfig } from '../helpers/service.ts';

const fixture = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FIXTURE_SERVER], ...extra });
const baseServers = {
  fixture: fixture({ tags: ['local', 'test'] }),
  everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], tags: ['reference'] },
  // A wrapper whose real server is a grandchild, next to a background grandchild that ignores stdin.
  wrapped: { command: '/bin/sh', args: ['-c', `sleep 1000 & "${process.execPath}" "${FIXTURE_SERVER}"`] },
};

const detail = (body: any, name: string) => body.servers.details.find((d: any) => d.name === name);

// ---------------------------------------------------------------------------------------------
const Full = suite('e2e serve (full level)');
let svc: Service;

Full.before(async () => {
  // The flag beats the environment variable: this service reports at `full`.
  svc = await startService({ config: { mcpServers: baseServers }, args: ['--health-info-level', 'full'], env: { AGENT_HEALTH_INFO_LEVEL: 'minimal' } });
});
Full.after(async () => {
  if (svc.child.exitCode === null) await svc.stop();
});

Full('e2e serve :: all backends connect and /health reports healthy with its headers', async () => {
  const res = await svc.waitFor(async () => {
    const r = await svc.get('/health');
    return r.body.status === 'healthy' && r;
  }, 'healthy');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  assert.is(res.headers.get('cache-control'), 'no-cache, no-store, must-revalidate');
  assert.is(res.headers.get('x-health-status'), 'healthy');
  assert.is(res.headers.get('x-service-version'), JSON.parse(fs.readFileSync('package.json', 'utf8')).version);
  assert.match(res.headers.get('x-uptime-seconds')!, /^\d+$/);
  assert.is(res.headers.get('ratelimit-policy'), '200;w=300');
  assert.is(res.headers.get('ratelimit-limit'), '200');
  assert.match(res.headers.get('ratelimit-remaining')!, /^\d+$/);
  assert.match(res.headers.get('ratelimit-reset')!, /^\d+$/);
});

Full('e2e serve :: the full report has every field', async () => {
  const { body } = await svc.get('/health');
  assert.equal(Object.keys(body).sort(), ['configuration', 'servers', 'status', 'system', 'timestamp', 'version']);
  assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(Object.keys(body.system).sort(), ['memory', 'process', 'uptime']);
  assert.equal(body.system.process.pid, svc.child.pid);
  assert.is(body.system.process.nodeVersion, process.version);
  assert.equal(body.servers.total, 3);
  assert.equal(body.servers.healthy, 3);
  assert.equal(body.servers.unhealthy, 0);
  const f = detail(body, 'fixture');
  assert.equal(Object.keys(f).sort(), ['healthy', 'lastConnected', 'lastError', 'name', 'status', 'tags']);
  assert.is(f.status, 'connected');
  assert.is(f.healthy, true);
  assert.is(f.lastError, null);
  assert.equal(f.tags, ['local', 'test']);
  assert.match(f.lastConnected, /Z$/);
  assert.equal(body.configuration, { loaded: true, serverCount: 3, enabledCount: 3, disabledCount: 0, authEnabled: false, transport: 'http' });
});

Full('e2e serve :: /health/live and /health/ready answer', async () => {
  const live = await svc.get('/health/live');
  assert.is(live.status, 200);
  assert.equal(Object.keys(live.body).sort(), ['status', 'timestamp']);
  assert.is(live.body.status, 'alive');
  assert.is(live.headers.get('cache-control'), 'no-cache, no-store, must-revalidate');
  const ready = await svc.get('/health/ready');
  assert.is(ready.status, 200);
  assert.is(ready.body.status, 'ready');
  assert.equal(ready.body.backendSupervision, { total: 0, connected: 0, restarting: 0, crashLoop: 0, stopped: 0, backends: [] });
  assert.is(ready.body.configuration.loaded, true);
});

Full('e2e serve :: a backend with a missing command shows as error and the others keep running', async () => {
  const before = (await svc.get('/health')).body;
  writeConfig(svc.configFile, { mcpServers: { ...baseServers, missing: { command: '/nonexistent/dir/agent-no-such-command' } } });
  const res = await svc.waitFor(async () => {
    const r = await svc.get('/health');
    return detail(r.body, 'missing')?.status === 'error' && r;
  }, 'missing backend in error');
  const missing = detail(res.body, 'missing');
  assert.match(missing.lastError, /command not found/);
  assert.not.match(missing.lastError, /nonexistent/, 'paths are redacted');
  assert.is(missing.healthy, false);
  assert.is(res.body.status, 'degraded');
  assert.is(res.status, 200);
  // Unchanged backends were not restarted by the reload.
  assert.is(detail(res.body, 'fixture').lastConnected, detail(before, 'fixture').lastConnected);
});

Full('e2e serve :: an invalid entry and a crash during initialize: 50% healthy is unhealthy (503)', async () => {
  writeConfig(svc.configFile, {
    mcpServers: {
      ...baseServers,
      missing: { command: '/nonexistent/dir/agent-no-such-command' },
      invalid: { command: 'node', stderr: 'pipes' },
      crashing: fixture({ args: [backendFixture('crashes-on-first-input.mjs')] }),
      off: { command: 'node', disabled: true },
    },
  });
  const res = await svc.waitFor(async () => {
    const r = await svc.get('/health');
    return detail(r.body, 'crashing')?.status === 'error' && r;
  }, 'crashing backend in error');
  assert.is(res.status, 503);
  assert.is(res.body.status, 'unhealthy');
  assert.is(res.headers.get('x-health-status'), 'unhealthy');
  assert.equal([res.body.servers.total, res.body.servers.healthy, res.body.servers.unhealthy], [6, 3, 3]);
  assert.equal(res.body.configuration, { loaded: true, serverCount: 7, enabledCount: 6, disabledCount: 1, authEnabled: false, transport: 'http' });
  assert.is(detail(res.body, 'off'), undefined);
  assert.match(detail(res.body, 'invalid').lastError, /^invalid configuration: mcpServers\.invalid\.stderr: expected one of "pipe", "overlapped", "inherit", "ignore".*, found the string "pipes"/);
  assert.match(detail(res.body, 'crashing').lastError, /exited with code 4 during initialize/);
  const logged = svc.logs.find((l) => l.msg === 'invalid server entry: not started' && l.backend === 'invalid');
  assert.ok(logged, 'the invalid entry is logged');
  assert.is(logged.code, 'invalid_config');
});

Full('e2e serve :: a second HTTP service on the same configuration refuses to start; a stdio one runs beside it', async () => {
  const before = descendants(svc.child.pid!).length;
  const second = await runCli(['serve', '--port', '0', '--config', svc.configFile]);
  assert.is(second.code, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`another agent service is already running on the configuration directory ${svc.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(pid ${svc.child.pid}, http://127\\.0\\.0\\.1:${svc.port}\\)`));
  assert.not.match(second.stderr, /backend connected/, 'it started no backend');
  assert.is(descendants(svc.child.pid!).length, before, 'the running service is untouched');
  assert.is((await svc.get('/health/live')).status, 200);

  const { spawn } = await import('node:child_process');
  const stdio = spawn(process.execPath, ['--import', 'tsx', 'bin/agent.ts', 'serve', '--transport', 'stdio', '--no-http', '--config', svc.configFile], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  stdio.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  await svc.waitFor(async () => /stdio mode: the control bus is not started/.test(err), 'the stdio service starting beside it');
  stdio.stdin.end();
  const code = await new Promise((r) => stdio.once('exit', r));
  assert.is(code, 0);
});

Full('e2e serve :: SIGTERM stops every child and grandchild', async () => {
  const tree = descendants(svc.child.pid!);
  assert.ok(tree.length >= 5, `expected backend processes, found ${tree.length}`);
  const stopped = await svc.stop('SIGTERM');
  assert.is(stopped.code, 0);
  const survivors = await svc.waitFor(async () => (tree.every((pid) => !isAlive(pid)) ? [] : undefined), 'processes to end', 5_000).catch(() => tree.filter(isAlive));
  assert.equal(survivors, []);
});

Full.run();

// ---------------------------------------------------------------------------------------------
const Unloaded = suite('e2e serve (unparseable config at startup)');
let broken: Service;
Unloaded.before(async () => {
  broken = await startService({ configText: '{\n  "mcpServers": {\n    "a": { "command": "node", }\n  }\n}\n' });
});
Unloaded.after(async () => {
  await broken.stop();
});

Unloaded('e2e serve :: an unparseable file leaves the service up and unloaded (503)', async () => {
  const line = await broken.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('configuration rejected'));
  assert.is(line.file, broken.configFile);
  assert.is(line.line, 3);
  assert.is(line.column, 31);
  const health = await broken.get('/health');
  assert.is(health.status, 503);
  assert.is(health.body.status, 'unhealthy');
  assert.equal(health.body.configuration, { loaded: false, serverCount: 0, enabledCount: 0, disabledCount: 0, authEnabled: false, transport: 'http' });
  const ready = await broken.get('/health/ready');
  assert.is(ready.status, 503);
  assert.is(ready.body.status, 'not_ready');
  assert.is((await broken.get('/health/live')).status, 200);
});

Unloaded('e2e serve :: the file loads as soon as a valid version appears', async () => {
  const noisy = { command: '/bin/sh', args: ['-c', `echo "login password=hunter2 from /home/someone/.secrets" >&2; exec "${process.execPath}" "${FIXTURE_SERVER}"`] };
  writeConfig(broken.configFile, { mcpServers: { a: fixture(), noisy } });
  const res = await broken.waitFor(async () => {
    const r = await broken.get('/health');
    return r.body.status === 'healthy' && r;
  }, 'healthy after fix');
  assert.is(res.status, 200);
  assert.is(res.body.configuration.loaded, true);
  assert.is((await broken.get('/health/ready')).status, 200);
});

Unloaded('e2e serve :: backend stderr is logged with the backend name, credentials redacted, paths kept', async () => {
  const line = await broken.waitForLog((l) => l.backend === 'noisy' && l.stream === 'stderr');
  assert.is(line.msg, 'login password=[REDACTED] from /home/someone/.secrets');
  assert.not.ok(broken.logs.some((l) => JSON.stringify(l).includes('hunter2')), 'the secret never reaches the log');
});

Unloaded.run();

// ---------------------------------------------------------------------------------------------
const Minimal = suite('e2e serve (basic level from the environment, no servers, rate limit)');
let quiet: Service;
Minimal.before(async () => {
  quiet = await startService({ config: { mcpServers: {} }, args: ['--health-rate-limit', '4', '--health-rate-window', '60'], env: { AGENT_HEALTH_INFO_LEVEL: 'basic' } });
  await quiet.waitForLog((l) => l.msg === 'configuration loaded');
  // Ready also needs an MCP worker up.
  await quiet.waitForLog((l) => l.msg === 'hub ready');
});
Minimal.after(async () => {
  await quiet.stop();
});

Minimal('e2e serve :: no servers is degraded (200); AGENT_HEALTH_INFO_LEVEL=basic applies', async () => {
  // The command line has no --health-info-level here, so AGENT_HEALTH_INFO_LEVEL=basic applies.
  const res = await quiet.get('/health');
  assert.is(res.status, 200);
  assert.is(res.body.status, 'degraded');
  assert.equal(Object.keys(res.body.system).sort(), ['memory', 'uptime']);
  assert.ok(Number.isInteger(res.body.system.memory.used), 'whole MB at basic');
  assert.equal(res.body.servers, { total: 0, healthy: 0, unhealthy: 0, details: [] });
});

Minimal('e2e serve :: over quota: 429 with Retry-After, shared by all health routes', async () => {
  const seen: number[] = [];
  for (const route of ['/health/live', '/health/ready', '/health/live']) seen.push((await quiet.get(route)).status);
  assert.equal(seen, [200, 200, 200]);
  const limited = await quiet.get('/health/live');
  assert.is(limited.status, 429);
  assert.is(limited.body.status, 'rate_limited');
  assert.is(limited.body.error, 'Too many health check requests');
  assert.match(limited.body.timestamp, /Z$/);
  assert.is(limited.headers.get('ratelimit-policy'), '4;w=60');
  assert.is(limited.headers.get('ratelimit-remaining'), '0');
  const retry = Number(limited.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
});

Minimal.run();

// ---------------------------------------------------------------------------------------------
const Many = suite('e2e serve (12 backends)');

Many('e2e serve :: with more than 10 backends stderr carries only JSON log lines (no MaxListenersExceededWarning)', async () => {
  const mcpServers = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`b${i}`, fixture()]));
  const many = await startService({ config: { mcpServers }, args: ['--health-rate-limit', '0'] });
  try {
    await many.waitFor(async () => (await many.get('/health')).body.status === 'healthy', 'all 12 healthy', 30_000);
    await new Promise((r) => setTimeout(r, 200));
    const raw = many.logs.filter((l) => l.raw);
    assert.equal(raw, [], 'every stderr line is a JSON log line');
    assert.not.ok(many.logs.some((l) => /MaxListenersExceeded/.test(JSON.stringify(l))), 'no listener leak warning');
  } finally {
    await many.stop();
  }
});

Many.run();

// ---------------------------------------------------------------------------------------------
const Cli = suite('e2e serve (command line)');

Cli('e2e serve :: an invalid --health-info-level is a usage error (exit 2)', async () => {
  const out = await runCli(['serve', '--port', '0', '--health-info-level', 'verbose']);
  assert.is(out.code, 2);
  assert.match(out.stderr, /Expected --health-info-level to be one of full, basic, minimal, got "verbose"/);
});

Cli('e2e serve :: an invalid AGENT_HEALTH_INFO_LEVEL is a usage error (exit 2)', async () => {
  const out = await runCli(['serve', '--port', '0'], { AGENT_HEALTH_INFO_LEVEL: 'everything' });
  assert.is(out.code, 2);
  assert.match(out.stderr, /Expected AGENT_HEALTH_INFO_LEVEL to be one of full, basic, minimal, got "everything"/);
});

Cli('e2e serve :: a missing config file is created in --config-dir, with minimal output', async () => {
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'agent-cfgdir-'));
  const configDir = path.join(dir, 'nested', 'agent');
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/agent.ts', 'serve', '--port', '0', '--config-dir', configDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /"port":(\d+)/.exec(err);
      if (m && /configuration loaded/.test(err)) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
      if (child.exitCode !== null) reject(new Error(err));
    }, 50);
  });
  assert.equal(JSON.parse(fs.readFileSync(path.join(configDir, 'mcp.json'), 'utf8')), { mcpServers: {} });
  assert.match(err, /configuration file did not exist: created an empty one/);
  const body: any = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  assert.equal(Object.keys(body.system), ['uptime']);
  assert.equal(body.servers, { total: 0, healthy: 0, unhealthy: 0 });
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
});

Cli.run();

// ---------------------------------------------------------------------------------------------
const Second = suite('e2e serve (a second signal)');

Second('e2e serve :: a second SIGTERM during a slow stop kills the backends, says so in the log and exits 1', async () => {
  // A backend that ignores SIGTERM and its stdin's end (its graceful stop takes both grace
  // periods), with a grandchild in a session of its own (out of the backend's process group).
  const marker = `second-signal-grandchild-${process.pid}-${Date.now()}`;
  const grandchild = `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)', '${marker}'], { detached: true, stdio: 'ignore' }).unref();`;
  const stubborn = { command: process.execPath, args: ['-e', `${grandchild} process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 1e6);`], connectionTimeout: 60_000 };
  const svc = await startService({ config: { mcpServers: { stubborn } } });
  let pids: number[] = [];
  try {
    pids = await svc.waitFor(async () => {
      // The backend's own command line names the marker too (in the script that spawns it).
      const stray = processesWith(marker).filter((p) => !p.cmdline.includes('child_process'));
      return stray.length === 1 && [...descendants(svc.child.pid!), stray[0]!.pid];
    }, 'the backend process and its grandchild');
    const exited = new Promise<number | null>((resolve) => svc.child.once('exit', (code) => resolve(code)));
    svc.child.kill('SIGTERM');
    await svc.waitForLog((l) => /shutting down/.test(String(l.msg)));
    await new Promise((r) => setTimeout(r, 1_200)); // past the 1 s in which a repeat counts as a copy
    svc.child.kill('SIGTERM');
    assert.is(await exited, 1);
    // 'exit' may come before the last of stderr is read.
    const line = await svc.waitForLog((l) => /^second SIGTERM/.test(String(l.msg)), 5_000);
    assert.is(line.exitCode, 1);
    assert.equal(await svc.waitFor(async () => (pids.every((pid) => !isAlive(pid)) ? [] : undefined), 'the backend and its grandchild killed', 5_000).catch(() => pids.filter(isAlive)), []);
  } finally {
    // Whatever failed, nothing of this test is left running.
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    for (const pid of [...pids, ...processesWith(marker).map((p) => p.pid)]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await svc.stop();
  }
});

Second.run();

// ---------------------------------------------------------------------------------------------
const Pretty = suite('e2e serve (--log-format pretty)');

// Found by an outside check: a backend worker's pretty line went through the worker's stderr
// pipe and the main thread logged it again as a WARN of its own, with two timestamps.
Pretty("e2e serve :: --log-format pretty: a backend worker's lines are written once, at their own level", async () => {
  const svc = await startService({ config: { mcpServers: { talker: { command: process.execPath, args: [backendFixture('writes-stderr-at-start.mjs'), '2'] } } }, args: ['--log-format', 'pretty'] });
  try {
    const line = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('fixture stderr line 1'));
    assert.match(String(line.msg), /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO fixture stderr line 1 \{"backend":"talker","stream":"stderr"\}$/);
    await svc.waitForLog((l) => typeof l.msg === 'string' && / INFO backend connected/.test(l.msg));
    const copies = svc.logs.filter((l) => String(l.msg).includes('fixture stderr line'));
    assert.is(copies.length, 2, copies.map((l) => l.msg).join('\n'));
    assert.not.ok(svc.logs.some((l) => String(l.msg).includes('worker stderr')), 'nothing logged again by the main thread');
  } finally {
    await svc.stop();
  }
});

Pretty.run();
