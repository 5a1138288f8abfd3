import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildRecord, childrenDir, forgetChild, procStartTime, readChildRecords, recordChild } from '../../lib/shared/child-records.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-child-records-'));
  dirs.push(dir);
  return dir;
}

async function started(command: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return child;
}

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function record(pid: number, startTime = '12345'): ChildRecord {
  return { pid, startTime, backend: 'files', servicePid: process.pid, command: 'node', recordedAt: new Date().toISOString() };
}

test.after(async () => {
  for (const child of children) await ended(child);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('child-records :: procStartTime reads field 22 of a running child, stable, after our own start', async () => {
  const child = await started('sleep', ['30']);
  const start = procStartTime(child.pid!);
  assert.ok(start && /^\d+$/.test(start), String(start));
  assert.is(procStartTime(child.pid!), start);
  assert.ok(BigInt(start) >= BigInt(procStartTime(process.pid)!));
  await ended(child);
  assert.is(procStartTime(child.pid!), null, 'null once the child is gone');
});

test('child-records :: procStartTime parses after the last ")" of a command name with spaces and parentheses', async () => {
  const dir = tempDir();
  const odd = path.join(dir, 'a) 1 2 (b');
  fs.symlinkSync(fs.realpathSync('/bin/sleep'), odd);
  const child = await started(odd, ['30']);
  const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  assert.ok(stat.includes('(a) 1 2 (b)'), stat);
  const expected = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  assert.is(procStartTime(child.pid!), expected);
  await ended(child);
});

test('child-records :: procStartTime is null for a zombie and for a pid that does not exist', async () => {
  // The background `sleep` becomes a zombie: its parent execs into `sleep 30`, which never reaps
  // it. It is killed once that exec has happened (one that ended before could be reaped by the shell).
  const parent = await started('sh', ['-c', 'sleep 60 & echo $!; exec sleep 30']);
  const zombie = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))));
  for (let i = 0; i < 200 && !fs.readFileSync(`/proc/${parent.pid}/cmdline`, 'utf8').startsWith('sleep\u000030'); i++) await new Promise((r) => setTimeout(r, 10));
  process.kill(zombie, 'SIGKILL');
  for (let i = 0; i < 200 && !/\) Z /.test(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 10));
  assert.match(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8'), /\) Z /);
  assert.is(procStartTime(zombie), null);
  await ended(parent);
  assert.is(procStartTime(2 ** 30), null);
});

test('child-records :: recordChild writes a private file in a private directory; forgetChild removes it', () => {
  const stateDir = tempDir();
  const entry = record(4242);
  recordChild(stateDir, entry);
  const file = path.join(childrenDir(stateDir), '4242.json');
  assert.is(fs.statSync(childrenDir(stateDir)).mode & 0o777, 0o700);
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')), entry);
  assert.equal(readChildRecords(stateDir), { records: [entry], unreadable: [] });
  forgetChild(stateDir, 4242);
  assert.not.ok(fs.existsSync(file));
  forgetChild(stateDir, 4242);
  assert.equal(readChildRecords(stateDir), { records: [], unreadable: [] });
});

test('child-records :: an existing children directory is made private', () => {
  const stateDir = tempDir();
  fs.mkdirSync(childrenDir(stateDir), { mode: 0o755 });
  fs.chmodSync(childrenDir(stateDir), 0o755);
  recordChild(stateDir, record(7));
  assert.is(fs.statSync(childrenDir(stateDir)).mode & 0o777, 0o700);
});

// Found by a flaky e2e test: a record written just after the state directory was removed made it
// again (and a configuration directory that is the state directory), before the service could.
test('child-records :: a state directory that is gone is not made again: the record fails', () => {
  const stateDir = path.join(tempDir(), 'removed');
  assert.throws(() => recordChild(stateDir, record(8)), /ENOENT/);
  assert.not.ok(fs.existsSync(stateDir));
});

test('child-records :: readChildRecords with no directory finds nothing', () => {
  assert.equal(readChildRecords(path.join(tempDir(), 'missing')), { records: [], unreadable: [] });
});

test('child-records :: unreadable files are reported and the rest are read', () => {
  const stateDir = tempDir();
  const good = record(10);
  recordChild(stateDir, good);
  const dir = childrenDir(stateDir);
  fs.writeFileSync(path.join(dir, '11.json'), '{not json');
  fs.writeFileSync(path.join(dir, '12.json'), JSON.stringify({ pid: 12 }));
  fs.writeFileSync(path.join(dir, '13.json'), JSON.stringify(record(99)));
  fs.writeFileSync(path.join(dir, '14.json.1.tmp'), 'partial');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
  const { records, unreadable } = readChildRecords(stateDir);
  assert.equal(records, [good]);
  assert.equal(
    unreadable.map((u) => path.basename(u.file)),
    ['11.json', '12.json', '13.json'],
  );
  assert.match(unreadable[1]!.error, /not a child record/);
  assert.match(unreadable[2]!.error, /records pid 99, not 13/);
});

test.run();
