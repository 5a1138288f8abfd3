import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { currentThreadId, lowerAutogroupPriority, parseAutogroup } from '../../lib/shared/priority.ts';

// Field 19 of /proc/<pid>/task/<tid>/stat is the nice value.
function niceOf(tid: number): number {
  const stat = fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

test('priority :: the main thread is its process', () => {
  assert.is(currentThreadId(), process.pid);
});

test('priority :: a worker lowers its own thread only; raising it back is refused quietly', async () => {
  const worker = new Worker(new URL('../../workers/bootstrap.mjs', import.meta.url), { workerData: { entry: new URL('../fixtures/workers/lowers-priority.ts', import.meta.url).href } });
  const { first, again } = await new Promise<any>((resolve) => worker.once('message', resolve));
  assert.equal(first.applied, true);
  assert.is(first.nice, 7);
  assert.is(niceOf(first.tid), 7, 'the worker thread runs at nice 7');
  assert.is(niceOf(process.pid), 0, 'the main thread keeps its priority');
  assert.equal(again, { applied: true, tid: first.tid, nice: 7 }, 'never raised back');
  await worker.terminate();
});

test('priority :: an autogroup file: the group and its nice value, or none where the task heads no group', () => {
  assert.equal(parseAutogroup('/autogroup-399 nice 0\n'), { group: '/autogroup-399', nice: 0 });
  assert.equal(parseAutogroup('/autogroup-12 nice 15\n'), { group: '/autogroup-12', nice: 15 });
  assert.equal(parseAutogroup('/autogroup-7 nice -3\n'), { group: '/autogroup-7', nice: -3 });
  // The kernel prints nothing for its root group (init's session and what never left it).
  assert.is(parseAutogroup(''), null);
});

// Where the kernel groups tasks by session: then a child in a session of its own heads a group.
const autogroupsOn = fs.existsSync('/proc/sys/kernel/sched_autogroup_enabled') && fs.readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';

function autogroupOf(pid: number | 'self'): { group: string; nice: number } | null {
  return parseAutogroup(fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
}

function autogroupNice(pid: number): number | undefined {
  return autogroupOf(pid)?.nice;
}

// The kernel may answer busy (one autogroup change per 100 ms for a process without CAP_SYS_ADMIN).
async function lowerGroup(pid: number, nice: number): Promise<ReturnType<typeof lowerAutogroupPriority>> {
  for (let tries = 1; ; tries++) {
    const result = lowerAutogroupPriority(pid, nice);
    // Up to 10 s: other processes on the machine may be taking the kernel's one slot per 100 ms.
    if (result.outcome !== 'busy' || tries === 70) return result;
    await new Promise((r) => setTimeout(r, 150));
  }
}

test('priority :: a child in its own session gets its autogroup lowered, never raised back; a gone process is absent', async () => {
  // A session of its own, as a backend child is spawned: on kernels with autogroups, a group of its own.
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  try {
    const pid = child.pid!;
    if (autogroupsOn) {
      // This process may be in the kernel's root group (no group printed): the child's is apart all the same.
      assert.is.not(autogroupOf(pid)!.group, autogroupOf('self')?.group, 'a group apart from this process');
      assert.is(autogroupNice(pid), 0);
      assert.equal(await lowerGroup(pid, 9), { outcome: 'applied', nice: 9 });
      assert.is(autogroupNice(pid), 9, 'the group runs at nice 9');
      assert.equal(lowerAutogroupPriority(pid, 4), { outcome: 'applied', nice: 9 }, 'never raised back');
      assert.is(autogroupNice(pid), 9);
      assert.ok([undefined, 0].includes(autogroupNice(process.pid)), "this process's group keeps its weight");
    } else {
      assert.equal(lowerAutogroupPriority(pid, 9), { outcome: 'absent' }, 'a kernel without autogroups, or with them switched off');
    }
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  assert.equal(lowerAutogroupPriority(child.pid!, 9), { outcome: 'absent' }, 'the process is gone');
});

test('priority :: autogroups switched off (sched_autogroup_enabled 0): nothing is written, the slot is not spent', async () => {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  const switchedOff = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'autogroup-')), 'sched_autogroup_enabled');
  fs.writeFileSync(switchedOff, '0\n');
  try {
    const before = fs.existsSync(`/proc/${child.pid}/autogroup`) ? fs.readFileSync(`/proc/${child.pid}/autogroup`, 'utf8') : null;
    assert.equal(lowerAutogroupPriority(child.pid!, 9, switchedOff), { outcome: 'absent' });
    if (before !== null) assert.is(fs.readFileSync(`/proc/${child.pid}/autogroup`, 'utf8'), before, 'the group is as it was');
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
    fs.rmSync(path.dirname(switchedOff), { recursive: true, force: true });
  }
});

test("priority :: a child in the service's own group is left alone: lowering it would lower the service", async () => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const pid = child.pid!;
    if (fs.existsSync(`/proc/${pid}/autogroup`)) {
      const own = fs.readFileSync('/proc/self/autogroup', 'utf8');
      // In the kernel's root group (nothing printed) the child heads no group either: absent.
      assert.equal(lowerAutogroupPriority(pid, 9), { outcome: autogroupOf('self') ? 'shared' : 'absent' });
      assert.is(fs.readFileSync('/proc/self/autogroup', 'utf8'), own, "this process's group is unchanged");
    } else {
      assert.equal(lowerAutogroupPriority(pid, 9), { outcome: 'absent' });
    }
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});

test.run();
