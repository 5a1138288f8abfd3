// End to end: what hot reload must see that a polling watcher comparing size and mtime did not
// (a file put back by `mv` or `touch -r`, a `chmod` after "permission denied", mcp.json made a
// symlink to nothing, a directory, then a file again), and what a reload must refuse clearly
// (a file nested 100,000 levels deep; keys written twice), in the service and in the CLI.
// Run as root, the service runs without root's right to read any file (setpriv, util-linux): it
// still reads the checkout and the files it owns, wherever CI put them, and meets "permission denied".
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_SERVER, type LogLine, poll, runCli, type Service, startService, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
/** The same size whatever the two-letter tag: a change only the content shows. */
const config = (tag: string) => ({ mcpServers: { one: { command: node, args: [FIXTURE_SERVER], tags: [tag] } } });
const text = (tag: string) => JSON.stringify(config(tag), null, 2);
const prefix = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'] : undefined;

let svc: Service;
const cli = (args: string[]) => runCli(args, {});

async function oneTags(): Promise<string[] | undefined> {
  const health = await svc.get('/health');
  return health.body.servers.details?.find((d: { name: string }) => d.name === 'one')?.tags;
}
const hasTag = (tag: string, what: string) => poll(async () => (await oneTags())?.[0] === tag, `${what} (tag ${tag})`, 10_000);

/** The next log line from now on that matches. */
function nextLog(predicate: (line: LogLine) => boolean): Promise<LogLine> {
  const from = svc.logs.length;
  return svc.waitForLog((line) => svc.logs.indexOf(line) >= from && predicate(line), 10_000);
}
const rejected = (found: RegExp) => (l: LogLine) => typeof l.msg === 'string' && l.msg.startsWith('configuration rejected') && found.test(l.msg);

const W = suite('e2e config watch');

W.before(async () => {
  svc = await startService({ config: config('AA'), args: ['--health-rate-limit', '0', '--health-info-level', 'basic'], ...(prefix ? { prefix } : {}) });
  await hasTag('AA', 'the first load');
});

W.after(async () => {
  await svc.stop();
});

W('e2e config watch :: a file put back by mv (older mtime, same size), and one rewritten then touch -r, are reloaded', async () => {
  const orig = `${svc.configFile}.orig`;
  fs.copyFileSync(svc.configFile, orig);
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(orig, past, past);
  writeConfig(svc.configFile, text('BB'));
  await hasTag('BB', 'the edit');
  fs.renameSync(orig, svc.configFile);
  await hasTag('AA', 'the rollback by mv');
  const { mtime } = fs.statSync(svc.configFile);
  fs.writeFileSync(svc.configFile, text('CC'));
  fs.utimesSync(svc.configFile, mtime, mtime);
  await hasTag('CC', 'the rewrite under its old mtime');
});

W('e2e config watch :: a file refused for "permission denied" loads once chmod makes it readable', async () => {
  const tmp = `${svc.configFile}.new`;
  fs.writeFileSync(tmp, text('DD'));
  fs.chmodSync(tmp, 0o000);
  const denied = nextLog(rejected(/found permission denied/));
  fs.renameSync(tmp, svc.configFile);
  await denied;
  fs.chmodSync(svc.configFile, 0o644);
  await hasTag('DD', 'the file made readable');
});

W('e2e config watch :: mcp.json a symlink to nothing, then a directory, then a file again: loaded, and later edits too', async () => {
  const n = path.join(svc.dir, 'n');
  fs.symlinkSync(path.join(svc.dir, 'missing', 'nonexistent.json'), n); // nothing there, and nothing can be written through it
  let seen = nextLog(rejected(/found no such file/));
  fs.renameSync(n, svc.configFile); // ln -sfn /nonexistent.json n && mv -T n mcp.json
  await seen;
  seen = nextLog(rejected(/found a directory/));
  fs.rmSync(svc.configFile);
  fs.mkdirSync(svc.configFile);
  await seen;
  fs.rmdirSync(svc.configFile);
  fs.writeFileSync(svc.configFile, text('EE'));
  await hasTag('EE', 'the file written where the directory was');
  writeConfig(svc.configFile, text('FF'));
  await hasTag('FF', 'a later edit');
  assert.is((await svc.get('/health')).body.configuration.loaded, true);
});

W('e2e config watch :: a file nested 100,000 levels deep is refused at its line and column, once, not retried; the CLI says so too', async () => {
  const from = svc.logs.length;
  const seen = nextLog(rejected(/nested at most 100 levels deep/));
  fs.writeFileSync(svc.configFile, `{"mcpServers": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  const line = await seen;
  assert.equal([line.file, line.line, line.column], [svc.configFile, 1, 16 + 99]);
  assert.match(String(line.msg), /found a bracket opening level 101; the last good configuration stays active/);
  await new Promise((r) => setTimeout(r, 600)); // a retry would be logged at once
  const since = svc.logs.slice(from).map((l) => String(l.msg));
  assert.not.ok(since.some((msg) => /configuration load failed|for want of resources|Maximum call stack/.test(msg)), since.join('\n'));
  assert.is((await oneTags())?.[0], 'FF', 'the last good configuration stays');
  const [status, disable] = await Promise.all([cli(['mcp', 'status', '--verbose', '--config', svc.configFile]), cli(['mcp', 'tools', 'disable', 'one', 'echo', '--config', svc.configFile])]);
  for (const [what, run] of [['status --verbose', status], ['tools disable', disable]] as const) {
    assert.match(run.stderr, `${svc.configFile}:1:115: expected objects and arrays nested at most 100 levels deep`, `${what}: ${run.stderr}`);
    assert.not.match(run.stderr, /RangeError|\n\s+at /, `${what}: no stack trace`);
  }
  assert.is(disable.code, 1);
  writeConfig(svc.configFile, text('GG'));
  await hasTag('GG', 'a valid file again');
});

W('e2e config watch :: keys written twice: a server name is refused (the running one kept), another key warns; the CLI edit refuses cleanly', async () => {
  const entry = (tag: string) => JSON.stringify({ command: node, args: [FIXTURE_SERVER], tags: [tag] });
  const twice = [
    '{',
    '  "mcpServers": {',
    `    "one": ${entry('GG')},`,
    '    "two": {',
    `      "command": ${JSON.stringify(node)},`,
    '      "args": ["first"],',
    `      "args": [${JSON.stringify(FIXTURE_SERVER)}]`,
    '    },',
    `    "one": ${entry('HH')}`,
    '  }',
    '}',
    '',
  ].join('\n');
  const warned = nextLog((l) => typeof l.msg === 'string' && l.msg.includes('"args" is written twice'));
  const refused = nextLog((l) => l.msg === 'invalid server entry ignored: the last good configuration keeps running' && l.backend === 'one');
  fs.writeFileSync(svc.configFile, twice);
  let last = '';
  const [warning, refusal] = await Promise.all([warned, refused]);
  assert.is(warning.msg, `${svc.configFile}: the key "args" is written twice in mcpServers.two (lines 6 and 7): the one at line 7 is used, the other is ignored`);
  assert.match(JSON.stringify(refusal.problems), /at mcpServers\.one: expected each server name once in mcpServers .*found the name \\"one\\" twice \(lines 3 and 9\)/);
  await poll(async () => {
    const details = (await svc.get('/health')).body.servers.details as { name: string; status: string; lastError: string | null; tags: string[] }[];
    const one = details.find((d) => d.name === 'one');
    last = JSON.stringify(details);
    return details.find((d) => d.name === 'two')?.status === 'connected' && one?.status === 'connected' && one.tags[0] === 'GG';
  }, 'two running with the last args, one running on its last good entry').catch((error) => assert.unreachable(`${error.message}: ${last}`));
  const status = await cli(['mcp', 'status', '--config', svc.configFile]);
  assert.match(status.stdout, /Entries not taken[^]*one: .*found the name "one" twice \(lines 3 and 9\)/, status.stdout);
  const before = fs.readFileSync(svc.configFile, 'utf8');
  const disable = await cli(['mcp', 'tools', 'disable', 'one', 'echo', '--config', svc.configFile]);
  assert.is(disable.code, 1, disable.stderr);
  assert.is(disable.stderr, `agent: Cannot edit ${svc.configFile}: the key "one" is written twice at mcpServers.one (lines 3 and 9); JSON readers use the last one and ignore the other: remove or rename one of them first\n`);
  assert.is(fs.readFileSync(svc.configFile, 'utf8'), before, 'the file is left unchanged');
});

W.run();
