import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnChild } from '../../lib/backend/child.ts';
import { bounded, commandSpec } from './helpers/runner-harness.ts';
import { isAlive } from '../helpers/processes.ts';

const settledYet = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setImmediate(() => resolve(false)))]);

test('child :: reaped as soon as the process is gone, while a grandchild still holds its pipes and `exited` waits', async () => {
  // The shell exits at once; the sleep it leaves behind keeps stdout and stderr open.
  const child = spawnChild(commandSpec('leaves-a-grandchild', '/bin/sh', ['-c', 'sleep 30 & exit 0']));
  try {
    await bounded(child.reaped, 'reaped');
    assert.is(await settledYet(child.exited), false, 'the pipes are still open');
  } finally {
    await child.kill();
  }
  assert.is(await settledYet(child.exited), true, 'the group is gone, the pipes closed');
});

// A backend that starts a process in a session of its own (out of its process group), prints
// that process's pid, and exits when its stdin closes: the polite stop's first step. The process
// keeps the backend's stdout open (`inherit`) or not.
const leavesADaemon = (stdout: 'ignore' | 'inherit') => `
const { spawn } = require('node:child_process');
const daemon = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: ['ignore', '${stdout}', 'ignore'] });
daemon.unref();
process.stdout.write(daemon.pid + '\\n');
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

// Read as a backend's stdout is read (kept open, not destroyed): the pid the backend prints first.
function daemonOf(child: ReturnType<typeof spawnChild>): Promise<number> {
  let out = '';
  return new Promise((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
  });
}

const ENDINGS: [string, 'ignore' | 'inherit', (child: ReturnType<typeof spawnChild>) => Promise<void>][] = [
  ['a stop ends what the backend started in a session of its own, although the backend exits first and its group is gone', 'ignore', (child) => child.stop(2_000)],
  ['kill() ends it too', 'ignore', (child) => child.kill()],
  // A grace far longer than the bound: the stop must not wait it out for a child already gone.
  ['a stop ends it also when it holds the backend\'s stdout, without waiting out the grace for the pipe it holds', 'inherit', (child) => child.stop(60_000)],
];

for (const [what, stdout, end] of ENDINGS) {
  test(`child :: ${what}`, async () => {
    const child = spawnChild(commandSpec('leaves-a-daemon', process.execPath, ['-e', leavesADaemon(stdout)]));
    const daemon = await bounded(daemonOf(child), 'the daemon pid');
    try {
      assert.ok(isAlive(daemon), 'the daemon runs');
      await bounded(end(child), 'the end', 8_000);
      const deadline = Date.now() + 2_000;
      while (isAlive(daemon) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.not.ok(isAlive(daemon), 'the daemon was ended by pid');
    } finally {
      try {
        process.kill(daemon, 'SIGKILL');
      } catch {
        /* ended */
      }
    }
  });
}

test.run();
