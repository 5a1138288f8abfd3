// End to end: `agent mcp status` against the real `agent serve` (live view) and without a
// service (configured view): secrets in --verbose, text and --json.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import type { StatusView } from '../../lib/main/status-view.ts';
import { FIXTURE_SERVER, poll, runCli, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const workDir = tempDir('agent-secret-workdir-');
const SECRETS = { API_TOKEN: 'tok-e2e-123', WORK_DIR: workDir, API_KEY: 'key-e2e-789', PASS: 'pw-e2e-000' };
const LITERAL_SECRETS = ['literal-key-111', 'default-env-secret'];
const config = {
  serverDefaults: { env: { SHARED: 'default-env-secret' }, headers: { 'X-Api-Key': '${API_KEY}' } },
  mcpServers: {
    local: { command: process.execPath, args: [FIXTURE_SERVER, '--token=${API_TOKEN}'], cwd: '${WORK_DIR}', env: { TOKEN: '${API_TOKEN}' } },
    remote: { url: 'http://user:${PASS}@127.0.0.1:9/mcp?api_key=literal-key-111&region=eu', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    inheriting: { url: 'http://127.0.0.1:9/${API_KEY}/mcp' },
  },
};

// What each view shows without --show-secrets, and with it.
const HIDDEN = {
  args: [FIXTURE_SERVER, '--token=${API_TOKEN}'],
  cwd: '${WORK_DIR}',
  env: { SHARED: '****', TOKEN: '****' },
  remoteUrl: 'http://****@127.0.0.1:9/mcp?api_key=****&region=eu',
  remoteHeaders: { Authorization: '****' },
  inheritingUrl: 'http://127.0.0.1:9/${API_KEY}/mcp',
  inheritingHeaders: { 'X-Api-Key': '****' },
};
const REVEALED = {
  args: [FIXTURE_SERVER, '--token=tok-e2e-123'],
  cwd: workDir,
  env: { SHARED: 'default-env-secret', TOKEN: 'tok-e2e-123' },
  remoteUrl: 'http://user:pw-e2e-000@127.0.0.1:9/mcp?api_key=literal-key-111&region=eu',
  remoteHeaders: { Authorization: 'Bearer tok-e2e-123' },
  inheritingUrl: 'http://127.0.0.1:9/key-e2e-789/mcp',
  inheritingHeaders: { 'X-Api-Key': 'key-e2e-789' },
};

let svc: Service;
let idleDir: string;
const status = (where: string[], ...flags: string[]) => runCli(['mcp', 'status', '--verbose', ...flags, ...where], SECRETS);
const views = () => ({ live: ['--config', svc.configFile], configured: ['--config-dir', idleDir] });

function checkText(stdout: string, want: typeof HIDDEN): void {
  assert.ok(stdout.includes(`\n   args: ${JSON.stringify(want.args)}\n`), stdout);
  assert.ok(stdout.includes(`\n   cwd: ${want.cwd}\n`), stdout);
  assert.ok(stdout.includes(`\n      SHARED: ${want.env.SHARED}\n      TOKEN: ${want.env.TOKEN}\n`), stdout);
  assert.ok(stdout.includes(`\n   url: ${want.remoteUrl}\n   headers:\n      Authorization: ${want.remoteHeaders.Authorization}\n`), stdout);
  assert.ok(stdout.includes(`\n   url: ${want.inheritingUrl}\n  *headers:\n      X-Api-Key: ${want.inheritingHeaders['X-Api-Key']}\n`), stdout);
}

function checkJson(stdout: string, want: typeof HIDDEN): void {
  const effective = (JSON.parse(stdout) as { effective: { name: string; effective: Record<string, any> }[] }).effective;
  const of = (name: string) => effective.find((e) => e.name === name)!.effective;
  assert.equal(of('local').args, want.args);
  assert.is(of('local').cwd, want.cwd);
  assert.equal({ SHARED: of('local').env.SHARED, TOKEN: of('local').env.TOKEN }, want.env);
  assert.is(of('remote').url, want.remoteUrl);
  assert.equal(of('remote').headers, want.remoteHeaders);
  assert.is(of('inheriting').url, want.inheritingUrl);
  assert.equal(of('inheriting').headers, want.inheritingHeaders);
}

function assertNoSecrets(out: string): void {
  for (const secret of [...Object.values(SECRETS), ...LITERAL_SECRETS]) assert.not.ok(out.includes(secret), `${secret} printed:\n${out}`);
}

const S = suite('e2e status cli');

S.before(async () => {
  svc = await startService({ config, env: SECRETS, args: ['--health-rate-limit', '0'] });
  idleDir = tempDir('agent-status-idle-');
  fs.writeFileSync(path.join(idleDir, 'mcp.json'), JSON.stringify(config));
});

S.after(async () => {
  await svc.stop();
  for (const dir of [idleDir, workDir]) fs.rmSync(dir, { recursive: true, force: true });
});

for (const view of ['live', 'configured'] as const) {
  const label = view === 'live' ? /^Live status of the service/ : /^Service not running: configured servers in /;

  S(`e2e status cli :: ${view} view, text: substituted values as written, credentials masked`, async () => {
    const result = await status(views()[view]);
    assert.is(result.code, 0, result.stderr);
    assert.match(result.stdout, label);
    checkText(result.stdout, HIDDEN);
    assertNoSecrets(result.stdout + result.stderr);
  });

  S(`e2e status cli :: ${view} view, --json: substituted values as written, credentials masked`, async () => {
    const result = await status(views()[view], '--json');
    assert.is(result.code, 0, result.stderr);
    assert.is(JSON.parse(result.stdout).live, view === 'live');
    checkJson(result.stdout, HIDDEN);
    assertNoSecrets(result.stdout + result.stderr);
  });

  S(`e2e status cli :: ${view} view, --show-secrets shows the real values (text and --json)`, async () => {
    const text = await status(views()[view], '--show-secrets');
    assert.is(text.code, 0, text.stderr);
    checkText(text.stdout, REVEALED);
    const json = await status(views()[view], '--show-secrets', '--json');
    assert.is(json.code, 0, json.stderr);
    checkJson(json.stdout, REVEALED);
  });
}

S('e2e status cli :: an entry a reload made invalid is shown beside its backend, which runs on; a valid entry clears it', async () => {
  const status = async () => {
    const answer = await callControl(socketPath(svc.dir), 'status', {});
    return answer.ok ? (answer.result as StatusView).servers.find((s) => s.name === 'local') : undefined;
  };
  const pid = (await poll(async () => (await status())?.pid ?? undefined, 'local running')) as number;
  writeConfig(svc.configFile, { ...config, mcpServers: { ...config.mcpServers, local: { ...config.mcpServers.local, requestTimeout: 'soon' } } });
  await poll(async () => (await status())?.entryError ?? undefined, 'the entry not taken');
  const text = (await runCli(['mcp', 'status', '--config', svc.configFile])).stdout;
  assert.ok(text.includes('Entries not taken (each runs on with its last good entry until the file is fixed):\n  local: invalid configuration: mcpServers.local.requestTimeout: expected a number, found the string "soon"\n'), text);
  assert.is((await status())?.pid, pid, 'still the same backend');
  writeConfig(svc.configFile, config);
  await poll(async () => (await status())?.entryError === null, 'valid again');
  assert.not.match((await runCli(['mcp', 'status', '--config', svc.configFile])).stdout, /Entries not taken/);
  assert.is((await status())?.pid, pid);
});

// Last: it breaks the service's configuration file.
S('e2e status cli :: a rejected reload shows in the text: when, why, and which configuration is served', async () => {
  const reloadFacts = async () => {
    const answer = await callControl(socketPath(svc.dir), 'status', {});
    return answer.ok ? (answer.result as StatusView).reload : undefined;
  };
  const loadedAt = (await poll(reloadFacts, 'the first load')).loadedAt;
  assert.ok(loadedAt);
  writeConfig(svc.configFile, '{\n  "mcpServers": {\n    "a": { "command": "node", }\n  }\n}\n');
  const rejected = (await poll(async () => (await reloadFacts())?.rejected ?? undefined, 'the rejected reload')).at;
  const result = await runCli(['mcp', 'status', '--config', svc.configFile]);
  assert.is(result.code, 0, result.stderr);
  assert.is(
    result.stdout.split('\n')[1],
    `Configuration: the last reload was rejected at ${rejected}: ${svc.configFile}:3:31: expected valid JSON (PropertyNameExpected), found "}"; serving the configuration loaded at ${loadedAt}`,
  );
  const json = JSON.parse((await runCli(['mcp', 'status', '--json', '--config', svc.configFile])).stdout) as StatusView;
  assert.equal(json.reload, { loadedAt, rejected: { at: rejected, reason: `${svc.configFile}:3:31: expected valid JSON (PropertyNameExpected), found "}"` } });

  writeConfig(svc.configFile, config);
  await poll(async () => (await reloadFacts())?.rejected === null, 'the configuration valid again');
  assert.not.match((await runCli(['mcp', 'status', '--config', svc.configFile])).stdout, /Configuration:/);
});

S.run();
