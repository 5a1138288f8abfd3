import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { currentThreadId, decideAutogroup, lowerAutogroupPriority, parseAutogroup } from '../../lib/shared/priority.ts';

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

test('priority :: what lowering a group comes to, from the kernel\'s files', () => {
  const on = '1\n';
  const own = '/autogroup-5 nice 0\n';
  const decide = (enabled: string, child: string, self: string, nice = 9) => decideAutogroup({ enabled, child, self }, nice);
  assert.equal(decide(on, '/autogroup-7 nice 0\n', own), { outcome: 'write', nice: 9 }, 'a group of its own at 0: written');
  assert.equal(decide(on, '/autogroup-7 nice 0\n', ''), { outcome: 'write', nice: 9 }, 'this process in the root group: the child\'s is apart');
  assert.equal(decide(on, '/autogroup-7 nice 12\n', own), { outcome: 'applied', nice: 12 }, 'lower already: never raised');
  assert.equal(decide(on, '/autogroup-5 nice 0\n', own), { outcome: 'shared' }, "this process's own group: left alone");
  assert.equal(decide(on, '', ''), { outcome: 'absent' }, 'the child in the root group');
  assert.equal(decide(on, '', own), { outcome: 'absent' });
  // Switched off (sched_autogroup_enabled 0): nothing is written, the kernel's slot is not spent.
  assert.equal(decide('0\n', '/autogroup-7 nice 0\n', own), { outcome: 'absent' });
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
