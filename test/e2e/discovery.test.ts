// End to end: `agent mcp ...` without --config finds a service started elsewhere through its
// announcement (lib/control/discovery.ts); with two running, it keeps the default location.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_SERVER, poll, runCli, type Service, startService, tempDir } from '../helpers/service.ts';

const runtime = tempDir('agent-runtime-');
const home = tempDir('agent-home-');
// The services and the CLI share a private runtime directory; the CLI's default location is empty.
const serviceEnv = { XDG_RUNTIME_DIR: runtime };
const cliEnv = { XDG_RUNTIME_DIR: runtime, HOME: home, AGENT_CONFIG: '', AGENT_CONFIG_DIR: '' };
const defaultDir = path.join(home, '.config', 'agent');
const config = (name: string) => ({ mcpServers: { [name]: { command: process.execPath, args: [FIXTURE_SERVER] } } });
const agent = (...args: string[]) => runCli(['mcp', ...args], cliEnv);
const using = (svc: Service) => `agent: note: no service runs for the default configuration directory ${defaultDir}; using the running service (pid ${svc.child.pid}, ${svc.configFile})\n`;

let a: Service;
let b: Service | undefined;

const recordOf = (svc: Service) => path.join(runtime, 'agent', `${svc.child.pid}.json`);
// A service announces itself once its control socket listens, after `listening on`.
const announced = (svc: Service) => poll(async () => fs.existsSync(recordOf(svc)), `the announcement of pid ${svc.child.pid}`);

const D = suite('e2e discovery');

D.before(async () => {
  a = await startService({ config: config('alpha'), env: serviceEnv, args: ['--health-rate-limit', '0'] });
  await announced(a);
});

D.after(async () => {
  await a.stop();
  await b?.stop();
  for (const dir of [runtime, home]) fs.rmSync(dir, { recursive: true, force: true });
});

D('e2e discovery :: a running service announces itself: <pid>.json (0600) in the runtime directory (0700)', async () => {
  const file = recordOf(a);
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(Object.keys(record).sort(), ['address', 'configDir', 'configFile', 'pid', 'socket', 'startedAt', 'stateDir']);
  assert.equal([record.pid, record.configFile, record.configDir, record.stateDir, record.address], [a.child.pid, a.configFile, a.dir, a.dir, a.base]);
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
  assert.is(fs.statSync(path.join(runtime, 'agent')).mode & 0o777, 0o700);
});

D('e2e discovery :: with one service running elsewhere, every command uses it and says so once', async () => {
  const status = await agent('status');
  assert.is(status.code, 0, status.stderr);
  assert.is(status.stderr, using(a));
  assert.match(status.stdout, new RegExp(`^Live status of the service \\(pid ${a.child.pid}, `));
  assert.match(status.stdout, /\nalpha +(connected|disconnected) /);

  const reload = await agent('reload');
  assert.equal([reload.code, reload.stderr], [0, using(a)]);

  const list = await agent('tools', 'list', 'alpha');
  assert.equal([list.code, list.stderr], [0, using(a)]);
  assert.match(list.stdout, /^Live tools of 'alpha' /);

  const disable = await agent('tools', 'disable', 'alpha', 'echo');
  assert.equal([disable.code, disable.stderr], [0, using(a)]);
  assert.match(disable.stdout, new RegExp(`added "echo" to mcpServers\\.alpha\\.disabledTools in ${a.configFile}\\.`));
  assert.equal(JSON.parse(fs.readFileSync(a.configFile, 'utf8')).mcpServers.alpha.disabledTools, ['echo'], "the service's own file was edited");
  assert.is(fs.readdirSync(path.join(a.dir, 'backups')).length, 1);
  assert.not.ok(fs.existsSync(defaultDir), 'nothing written to the default location');
});

D('e2e discovery :: with two running elsewhere, the default location is kept and the note lists both', async () => {
  b = await startService({ config: config('beta'), env: serviceEnv, args: ['--health-rate-limit', '0'] });
  await announced(b);
  fs.mkdirSync(defaultDir, { recursive: true });
  fs.writeFileSync(path.join(defaultDir, 'mcp.json'), '{"mcpServers": {}}\n');
  const both = `agent: note: no service runs for the default configuration directory ${defaultDir}; 2 services run elsewhere (pid ${a.child.pid}, ${a.configFile}; pid ${b.child.pid}, ${b.configFile}): choose one with --config or --config-dir\n`;
  const status = await agent('status');
  assert.is(status.code, 0, status.stderr);
  assert.is(status.stderr, both);
  assert.match(status.stdout, new RegExp(`^Service not running: configured servers in ${defaultDir}/mcp\\.json`));
  const restart = await agent('restart', 'alpha');
  assert.is(restart.code, 3);
  assert.is(restart.stderr, `${both}agent: no running service found for ${defaultDir} (control socket ${defaultDir}/agent.sock); \`agent mcp restart\` needs \`agent serve\` running\n`);
  const flagged = await runCli(['mcp', 'status', '--config', b.configFile], cliEnv);
  assert.equal([flagged.code, flagged.stderr], [0, ''], 'an explicit location needs no note');
});

D('e2e discovery :: a stopped service is no longer announced; the other one is found', async () => {
  const pid = a.child.pid;
  await a.stop();
  assert.not.ok(fs.existsSync(path.join(runtime, 'agent', `${pid}.json`)), 'removed at shutdown');
  fs.rmSync(defaultDir, { recursive: true, force: true });
  const status = await agent('status');
  assert.is(status.code, 0, status.stderr);
  assert.is(status.stderr, using(b!));
  assert.match(status.stdout, new RegExp(`^Live status of the service \\(pid ${b!.child.pid}, `));
});

D.run();
