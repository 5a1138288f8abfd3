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
// that process's pid, and exits when its stdin closes: the polite stop's first step.
const LEAVES_A_DAEMON = `
const { spawn } = require('node:child_process');
const daemon = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
daemon.unref();
process.stdout.write(daemon.pid + '\\n');
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

async function daemonOf(child: ReturnType<typeof spawnChild>): Promise<number> {
  let out = '';
  child.stdout.setEncoding('utf8');
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('\n')) return Number(out.trim());
  }
  throw new Error(`no pid printed: ${out}`);
}

const ENDINGS: [string, (child: ReturnType<typeof spawnChild>) => Promise<void>][] = [
  ['a stop ends what the backend started in a session of its own, although the backend exits first and its group is gone', (child) => child.stop(2_000)],
  ['kill() ends it too', (child) => child.kill()],
];

for (const [what, end] of ENDINGS) {
  test(`child :: ${what}`, async () => {
    const child = spawnChild(commandSpec('leaves-a-daemon', process.execPath, ['-e', LEAVES_A_DAEMON]));
    const daemon = await bounded(daemonOf(child), 'the daemon pid');
    try {
      assert.ok(isAlive(daemon), 'the daemon runs');
      await bounded(end(child), 'the end');
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
