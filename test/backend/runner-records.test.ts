import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { childrenDir, procStartTime, readChildRecords } from '../../lib/shared/child-records.ts';
import { backendFixture, harness, STDIO_SERVER, stdioSpec } from './helpers/runner-harness.ts';

const dirs: string[] = [];
function stateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runner-records-'));
  dirs.push(dir);
  return dir;
}

test.after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('runner records :: a stdio child is recorded before it is reported as connecting, and forgotten once stopped', async () => {
  const dir = stateDir();
  const h = harness(stdioSpec('recorded', STDIO_SERVER), { stateDir: dir });
  const seenAtConnecting: unknown[] = [];
  try {
    const started = h.runner.start();
    const connecting = await h.next('connecting');
    seenAtConnecting.push(...readChildRecords(dir).records.map((r) => r.pid));
    await started;
    await h.next('connected');
    const pid = connecting.pid!;
    assert.equal(seenAtConnecting, [pid], 'recorded synchronously, right after the spawn');
    const { records, unreadable } = readChildRecords(dir);
    assert.equal(unreadable, []);
    assert.is(records.length, 1);
    const [record] = records;
    assert.equal({ ...record, recordedAt: 'x' }, { pid, startTime: procStartTime(pid)!, backend: 'recorded', servicePid: process.pid, command: process.execPath, recordedAt: 'x' });
    assert.ok(!Number.isNaN(Date.parse(record!.recordedAt)));
    assert.is(fs.statSync(path.join(childrenDir(dir), `${pid}.json`)).mode & 0o777, 0o600);
    await h.runner.stop(500);
    assert.equal(readChildRecords(dir).records, [], 'forgotten once its exit was seen');
  } finally {
    await h.close();
  }
});

test('runner records :: a child that exits by itself is forgotten too', async () => {
  const dir = stateDir();
  const h = harness(stdioSpec('brief', [backendFixture('exits-after-delay.mjs'), '1000']), { stateDir: dir });
  try {
    await h.runner.start();
    const { pid } = await h.next('connected');
    assert.equal(readChildRecords(dir).records.map((r) => r.pid), [pid]);
    await h.next('exited');
    assert.equal(readChildRecords(dir).records, []);
  } finally {
    await h.close();
  }
});

test('runner records :: without a state directory nothing is written', async () => {
  const dir = stateDir();
  const h = harness(stdioSpec('unrecorded', STDIO_SERVER, { cwd: dir }), { stateDir: null });
  try {
    await h.runner.start();
    await h.next('connected');
    assert.equal(fs.readdirSync(dir), []);
  } finally {
    await h.close();
  }
});

test.run();
