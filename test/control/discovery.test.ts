import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { announceService, findServices, resolveRuntimeDir, runtimeDir, type ServiceRecord } from '../../lib/control/discovery.ts';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-discovery-'));
  tempDirs.push(dir);
  return dir;
}
test.after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const record = (pid: number, startedAt = '2026-11-22T01:00:00.000Z'): ServiceRecord => ({
  pid,
  configFile: `/srv/${pid}/mcp.json`,
  configDir: `/srv/${pid}`,
  socket: `/srv/${pid}/agent.sock`,
  address: 'http://127.0.0.1:3050',
  startedAt,
});
// A pid that has just exited (reuse that fast is not expected).
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());

const rule: [string, Parameters<typeof resolveRuntimeDir>[0], string][] = [
  ['XDG_RUNTIME_DIR set and writable', { xdgRuntimeDir: '/run/user/1000', tmpdir: '/tmp', user: '1000', isWritableDir: () => true }, '/run/user/1000/agent'],
  ['XDG_RUNTIME_DIR unset', { xdgRuntimeDir: undefined, tmpdir: '/tmp', user: '1000', isWritableDir: () => true }, '/tmp/agent-1000'],
  ['XDG_RUNTIME_DIR empty', { xdgRuntimeDir: '', tmpdir: '/tmp', user: '1000', isWritableDir: () => true }, '/tmp/agent-1000'],
  ['XDG_RUNTIME_DIR not writable', { xdgRuntimeDir: '/run/user/1000', tmpdir: '/tmp', user: '1000', isWritableDir: () => false }, '/tmp/agent-1000'],
  ['XDG_RUNTIME_DIR relative', { xdgRuntimeDir: 'run', tmpdir: '/tmp', user: '1000', isWritableDir: () => true }, '/tmp/agent-1000'],
];
for (const [title, input, expected] of rule) test(`discovery :: runtime dir: ${title}`, () => assert.is(resolveRuntimeDir(input), expected));

test('discovery :: runtime dir from the environment', () => {
  const xdg = tempDir();
  assert.is(runtimeDir({ XDG_RUNTIME_DIR: xdg }), path.join(xdg, 'agent'));
  assert.is(runtimeDir({ XDG_RUNTIME_DIR: path.join(xdg, 'missing') }), path.join(os.tmpdir(), `agent-${process.getuid?.() ?? os.userInfo().username}`));
});

test('discovery :: an announced live service is found; its file is 0600 in a 0700 directory, written atomically', async () => {
  const dir = path.join(tempDir(), 'agent');
  const mine = record(process.pid);
  const announcement = await announceService(mine, { dir });
  assert.is(announcement.file, path.join(dir, `${process.pid}.json`));
  assert.equal(fs.readdirSync(dir), [`${process.pid}.json`], 'no temp file left');
  assert.is(fs.statSync(dir).mode & 0o777, 0o700);
  assert.is(fs.statSync(announcement.file).mode & 0o777, 0o600);
  assert.equal(await findServices({ dir }), [mine]);
  await announcement.remove();
  await announcement.remove();
  assert.equal(await findServices({ dir }), []);
});

test('discovery :: stale, malformed and mismatched records are removed; other files are left', async () => {
  const dir = tempDir();
  const dead = deadPid();
  fs.writeFileSync(path.join(dir, `${dead}.json`), JSON.stringify(record(dead)));
  fs.writeFileSync(path.join(dir, '12.json'), '{"pid": 12');
  fs.writeFileSync(path.join(dir, '13.json'), JSON.stringify({ ...record(process.pid) }));
  fs.writeFileSync(path.join(dir, `.${process.pid}.abc.tmp`), 'partial');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
  await announceService(record(process.pid, '2026-11-22T02:00:00.000Z'), { dir });
  const parent = process.ppid;
  await announceService(record(parent), { dir });
  assert.equal((await findServices({ dir })).map((r) => r.pid), [parent, process.pid], 'oldest first');
  assert.equal(fs.readdirSync(dir).sort(), [`.${process.pid}.abc.tmp`, `${parent}.json`, `${process.pid}.json`, 'notes.txt'].sort());
});

test('discovery :: a missing directory means no services', async () => {
  assert.equal(await findServices({ dir: path.join(tempDir(), 'none') }), []);
});

test('discovery :: a directory open to others is narrowed to 0700', async () => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o777);
  await findServices({ dir });
  assert.is(fs.statSync(dir).mode & 0o777, 0o700);
});

test('discovery :: a symlink in place of the directory is refused', async () => {
  const target = tempDir();
  const link = path.join(tempDir(), 'agent');
  fs.symlinkSync(target, link);
  for (const attempt of [() => findServices({ dir: link }), () => announceService(record(process.pid), { dir: link })]) {
    try {
      await attempt();
      assert.unreachable('expected a refusal');
    } catch (error) {
      assert.is((error as Error).message, `Refusing to use the runtime directory ${link}: it is not a directory`);
    }
  }
});

if (process.getuid?.() === 0) {
  test("discovery :: another user's directory is refused", async () => {
    const dir = tempDir();
    fs.chownSync(dir, 12345, 12345);
    try {
      await findServices({ dir });
      assert.unreachable('expected a refusal');
    } catch (error) {
      assert.is((error as Error).message, `Refusing to use the runtime directory ${dir}: it belongs to another user (uid 12345)`);
    }
  });
}

test.run();
