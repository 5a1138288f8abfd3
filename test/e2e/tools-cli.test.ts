// End to end: `agent mcp tools list|disable|enable` against the real `agent serve` and a
// connected client; the configured view and exit codes without a service.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { FIXTURE_SERVER, poll, runCli, type Service, startService, tempDir } from '../helpers/service.ts';

const node = process.execPath;
const config = {
  mcpServers: {
    plain: { command: node, args: [FIXTURE_SERVER], toolDescriptionOverrides: { echo: 'Echo, as the operator describes it' } },
    off: { command: node, args: [FIXTURE_SERVER], disabled: true, disabledTools: ['pid'] },
  },
  mcpTemplates: { tmpl: { command: node, args: [FIXTURE_SERVER], disabledTools: ['slow'] } },
};

let svc: Service;
let client: V1Client;
let changes = 0;

async function pidOf(name: string): Promise<number | null> {
  const answer = await callControl(socketPath(svc.dir), 'status', {});
  if (!answer.ok) throw new Error(answer.error.message);
  const found = (answer.result as { servers: { name: string; pid: number | null; status: string }[] }).servers.find((s) => s.name === name);
  return found?.status === 'connected' ? found.pid : null;
}

const clientTools = async () => (await client.listTools()).tools;
const cli = (...args: string[]) => runCli(['mcp', 'tools', ...args, '--config', svc.configFile]);
const backups = () => {
  const dir = path.join(svc.dir, 'backups');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

const T = suite('e2e tools cli');

T.before(async () => {
  svc = await startService({ config, args: ['--health-rate-limit', '0'] });
  await poll(async () => (await pidOf('plain')) !== null, 'plain connected');
  client = new V1Client({ name: 'e2e-tools-cli', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
  await client.connect(new V1HttpTransport(new URL(`${svc.base}/mcp`)));
  await poll(async () => (await clientTools()).some((t) => t.name === 'plain_agent_add'), 'the client sees plain_agent_add');
});

T.after(async () => {
  await client.close();
  await svc.stop();
});

T('e2e tools cli :: list shows the live inventory with effective descriptions and enabled marks', async () => {
  const text = await cli('list', 'plain');
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, /Live tools of 'plain' \(status connected\) from the running service: 6 tools, 6 enabled, 0 disabled/);
  assert.match(text.stdout, /\necho +enabled +Echo, as the operator describes it {2}\[overridden\]\n/);
  assert.match(text.stdout, /\nadd +enabled +Add two numbers\n/);
  assert.match(text.stdout, /Overridden descriptions[^\n]*\n {2}echo: Echo back the given text\n/);
  const json = await runCli(['mcp', 'tools', 'list', 'plain', '--json', '--config-dir', svc.dir]);
  assert.is(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  assert.is(body.live, true);
  assert.equal(body.tools.map((t: { name: string }) => t.name).sort(), ['add', 'chatter', 'echo', 'env', 'pid', 'slow']);
  const echo = body.tools.find((t: { name: string }) => t.name === 'echo');
  assert.equal(echo, {
    name: 'echo',
    qualifiedName: 'plain_agent_echo',
    upstreamDescription: 'Echo back the given text',
    description: 'Echo, as the operator describes it',
    enabled: true,
    overridden: true,
  });
});

T('e2e tools cli :: disable hides the tool from the connected client without restarting the backend', async () => {
  const pid = await pidOf('plain');
  const seen = changes;
  const original = fs.readFileSync(svc.configFile, 'utf8');
  const result = await cli('disable', 'plain', 'plain_agent_add');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /Disabled tool 'add' of server 'plain': added "add" to mcpServers\.plain\.disabledTools/);
  assert.match(result.stdout, /Backup of the previous file: .*backups/);
  assert.match(result.stdout, /The running service \(pid \d+\) picks the change up by hot reload: connected clients get tools\/list_changed and no longer see plain_agent_add, without a restart of the backend/);
  assert.not.match(result.stdout, /Note:/, 'a tool of the live inventory needs no note');
  // The file: only disabledTools was added; everything else is as it was.
  const edited = JSON.parse(fs.readFileSync(svc.configFile, 'utf8'));
  const expected = JSON.parse(original);
  expected.mcpServers.plain.disabledTools = ['add'];
  assert.equal(edited, expected);
  assert.is(backups().length, 1);
  assert.is(fs.readFileSync(path.join(svc.dir, 'backups', backups()[0]!), 'utf8'), original);

  await poll(async () => changes > seen, 'tools/list_changed after the disable');
  await poll(async () => !(await clientTools()).some((t) => t.name === 'plain_agent_add'), 'plain_agent_add gone for the client');
  assert.ok((await clientTools()).some((t) => t.name === 'plain_agent_echo'));
  assert.is(await pidOf('plain'), pid, 'the backend kept its process');

  const listed = await cli('list', 'plain', '--disabled');
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /6 tools, 5 enabled, 1 disabled/);
  assert.match(listed.stdout, /\nadd +DISABLED +Add two numbers\n/);
  assert.not.match(listed.stdout, /\necho /);
  const json = JSON.parse((await cli('list', 'plain', '--disabled', '--json')).stdout);
  assert.equal(
    json.tools.map((t: { name: string; enabled: boolean }) => [t.name, t.enabled]),
    [['add', false]],
  );
});

T('e2e tools cli :: disabling again is a no-op with a clear message, no write, no backup', async () => {
  const before = fs.readFileSync(svc.configFile, 'utf8');
  const mtime = fs.statSync(svc.configFile).mtimeMs;
  const result = await cli('disable', 'plain', 'add');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /Tool 'add' of server 'plain' is already disabled .*nothing changed/);
  assert.is(fs.readFileSync(svc.configFile, 'utf8'), before);
  assert.is(fs.statSync(svc.configFile).mtimeMs, mtime);
  assert.is(backups().length, 1);
});

T('e2e tools cli :: enable brings the tool back, still without a restart', async () => {
  const pid = await pidOf('plain');
  const seen = changes;
  const result = await cli('enable', 'plain', 'add');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /Enabled tool 'add' of server 'plain': removed "add" from mcpServers\.plain\.disabledTools/);
  assert.match(result.stdout, /see plain_agent_add again, without a restart of the backend/);
  await poll(async () => changes > seen, 'tools/list_changed after the enable');
  await poll(async () => (await clientTools()).some((t) => t.name === 'plain_agent_add'), 'plain_agent_add back for the client');
  const called = await client.callTool({ name: 'plain_agent_add', arguments: { a: 2, b: 3 } });
  assert.match(JSON.stringify(called.content), /5/);
  assert.is(await pidOf('plain'), pid, 'the backend kept its process');
  assert.is(backups().length, 2);
  const again = await cli('enable', 'plain', 'plain_agent_add');
  assert.is(again.code, 0);
  assert.match(again.stdout, /already enabled/);
});

T('e2e tools cli :: disabling a tool the connected backend does not have is an error naming the closest tools; --force records it', async () => {
  const before = fs.readFileSync(svc.configFile, 'utf8');
  const saved = backups().length;
  const refused = await cli('disable', 'plain', 'ad');
  assert.is(refused.code, 1, refused.stderr);
  assert.is(refused.stdout, '');
  assert.match(
    refused.stderr,
    /^agent: Server 'plain' has no tool 'ad' in the live inventory of the running service \(pid \d+: 6 tools; closest: add, pid, env\)\. Nothing was changed; --force records it in disabledTools anyway\.\n$/,
  );
  assert.is(fs.readFileSync(svc.configFile, 'utf8'), before);
  assert.is(backups().length, saved, 'no backup either');

  const forced = await cli('disable', 'plain', 'plain_agent_ad', '--force');
  assert.is(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /Disabled tool 'ad' of server 'plain': added "ad" to mcpServers\.plain\.disabledTools/);
  assert.match(forced.stdout, /\nNote: 'ad' is not a tool that server 'plain' has now \(live inventory: 6 tools; closest: add, pid, env\); recorded anyway \(--force\): it hides a tool of that name if the backend gets one\.\n/);
  assert.equal(JSON.parse(fs.readFileSync(svc.configFile, 'utf8')).mcpServers.plain.disabledTools, ['ad']);
  const enabled = await cli('enable', 'plain', 'ad');
  assert.is(enabled.code, 0, enabled.stderr);
  assert.match(enabled.stdout, /\nNote: 'ad' is not a tool that server 'plain' has now \(live inventory: 6 tools; closest: add, pid, env\): no tool appears until the backend has one of that name\.\n/);
  assert.match(enabled.stdout, /connected clients get tools\/list_changed and see no new tool,/);
  assert.not.match(enabled.stdout, /plain_agent_ad again/);
});

T('e2e tools cli :: a backend without a live inventory: the tool is recorded and said to be unchecked', async () => {
  const result = await cli('disable', 'off', 'whatever');
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /\nNote: 'whatever' could not be checked against a live inventory \(Server 'off' is disabled in [^\n]*mcp\.json: no live inventory\); it is recorded as given\.\n/);
  assert.is((await cli('enable', 'off', 'whatever')).code, 0);
});

T('e2e tools cli :: servers without a live inventory: disabled, templates; unknown server exits 1', async () => {
  const off = await cli('list', 'off');
  assert.is(off.code, 0, off.stderr);
  assert.match(off.stdout, /^Server 'off' is disabled in the running service: no live inventory\.\n/);
  assert.match(off.stdout, /Configured tool rules of 'off' .*\(no live inventory\):\nDisabled tools \(mcpServers\.off\.disabledTools\):\n {2}pid\n/);
  const tmpl = await cli('list', 'tmpl', '--json');
  assert.is(tmpl.code, 0, tmpl.stderr);
  assert.equal(JSON.parse(tmpl.stdout).disabledTools, ['slow']);
  assert.is(JSON.parse(tmpl.stdout).section, 'mcpTemplates');
  assert.match(JSON.parse(tmpl.stdout).reason, /The running service has no backend 'tmpl'/);

  const unknown = await cli('list', 'nope');
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /Server 'nope' not found in .*mcp\.json/);
  assert.is(unknown.stdout, '');
  const before = fs.readFileSync(svc.configFile, 'utf8');
  for (const action of ['disable', 'enable']) {
    const edit = await cli(action, 'nope', 'echo');
    assert.is(edit.code, 1, `${action} of an unknown server`);
    assert.match(edit.stderr, /Server 'nope' not found in .*configured: off, plain, tmpl/);
  }
  assert.is(fs.readFileSync(svc.configFile, 'utf8'), before);
});

T('e2e tools cli :: usage errors exit 2 and change nothing', async () => {
  const before = fs.readFileSync(svc.configFile, 'utf8');
  const cases: string[][] = [
    ['disable', 'plain'],
    ['disable', 'plain', ''],
    ['enable', 'plain', '   '],
    ['enable', 'plain', 'plain_agent_'],
    ['disable', 'plain', 'echo', 'extra'],
    ['list'],
    ['frobnicate', 'plain'],
    ['list', 'plain', '--bogus'],
  ];
  for (const args of cases) {
    const result = await cli(...args);
    assert.is(result.code, 2, `agent mcp tools ${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /^agent: /);
  }
  assert.match((await cli('disable', 'plain', '')).stderr, /needs a non-empty tool name/);
  assert.match((await cli('disable', 'plain')).stderr, /Missing <tool>/);
  assert.is(fs.readFileSync(svc.configFile, 'utf8'), before);
});

T('e2e tools cli :: without a running service: list is the labelled configured view (exit 0), edits still work', async () => {
  const dir = tempDir('agent-tools-cli-');
  try {
    const file = path.join(dir, 'mcp.json');
    const text = `${JSON.stringify(config, null, 4)}\n`;
    fs.writeFileSync(file, text);
    const list = await runCli(['mcp', 'tools', 'list', 'plain', '--config-dir', dir]);
    assert.is(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Service not running\.\nConfigured tool rules of 'plain' in .*mcp\.json \(no live inventory\):/);
    assert.match(list.stdout, /Description overrides \(mcpServers\.plain\.toolDescriptionOverrides\):\n {2}echo: Echo, as the operator describes it\n/);
    const json = JSON.parse((await runCli(['mcp', 'tools', 'list', 'plain', '--json', '--config-dir', dir])).stdout);
    assert.is(json.live, false);
    assert.equal(json.disabledTools, []);

    const disable = await runCli(['mcp', 'tools', 'disable', 'plain', 'echo', '--config-dir', dir]);
    assert.is(disable.code, 0, disable.stderr);
    assert.match(disable.stdout, /No service answers for .*mcp\.json on .*agent\.sock: the change applies when `agent serve` starts/);
    assert.match(disable.stdout, /\nNote: 'echo' could not be checked against a live inventory \(no service is running\); it is recorded as given\.\n/);
    const expected = structuredClone(config) as typeof config & { mcpServers: { plain: { disabledTools?: string[] } } };
    expected.mcpServers.plain.disabledTools = ['echo'];
    assert.is(fs.readFileSync(file, 'utf8'), `${JSON.stringify(expected, null, 4)}\n`, '4-space layout kept');
    const disabled = await runCli(['mcp', 'tools', 'list', 'plain', '--disabled', '--config-dir', dir]);
    assert.match(disabled.stdout, /Disabled tools \(mcpServers\.plain\.disabledTools\):\n {2}echo\n$/);

    // A name in both sections: the template is edited, the stale server entry is not.
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { tmpl: { command: 'x', disabledTools: ['stale'] } }, mcpTemplates: config.mcpTemplates }, null, 2));
    const template = await runCli(['mcp', 'tools', 'disable', 'tmpl', 'echo', '--config-dir', dir]);
    assert.is(template.code, 0, template.stderr);
    assert.match(template.stdout, /added "echo" to mcpTemplates\.tmpl\.disabledTools/);
    assert.match(template.stdout, /mcpServers\.tmpl\.disabledTools is left unchanged: mcpTemplates\.tmpl is authoritative/);
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(after.mcpTemplates.tmpl.disabledTools, ['slow', 'echo']);
    assert.equal(after.mcpServers.tmpl.disabledTools, ['stale']);

    const unknown = await runCli(['mcp', 'tools', 'list', 'nope', '--config-dir', dir]);
    assert.is(unknown.code, 1);
    assert.match(unknown.stderr, /Server 'nope' not found/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Found by an outside check: with --state-dir the backup went to the configuration directory,
// which decisions §2 lets be read-only; writable state, backups among it, lives in the state directory.
T('tools cli :: with --state-dir the backup of an edit goes to the state directory', async () => {
  const dir = tempDir('agent-tools-state-');
  const configDir = path.join(dir, 'cfg');
  const stateDir = path.join(dir, 'state');
  fs.mkdirSync(configDir);
  fs.mkdirSync(stateDir);
  const file = path.join(configDir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { plain: { command: node, args: [FIXTURE_SERVER] } } }));
  try {
    const result = await runCli(['mcp', 'tools', 'disable', 'plain', 'echo', '--force', '--config', file, '--state-dir', stateDir]);
    assert.is(result.code, 0, result.stderr);
    assert.equal(fs.readdirSync(path.join(stateDir, 'backups')).length, 1);
    assert.not.ok(fs.existsSync(path.join(configDir, 'backups')), 'nothing written beside mcp.json');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.plain.disabledTools, ['echo']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

T.run();
