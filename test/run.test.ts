// test/run.mjs, the suite's runner, over fixture test files (test/fixtures/runner): what it
// counts as a failure, and that an interrupt ends the shards and what their tests started.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { poll, ROOT, tempDir } from './helpers/service.ts';
import { isAlive } from './helpers/processes.ts';

type Run = { code: number | null; stdout: string };

function runner(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['test/run.mjs', '--dir', 'fixtures/runner', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout })));
  return { child, done };
}

const totals = (run: Run) => /(\d+) passed, (\d+) failed/.exec(run.stdout)?.slice(1).map(Number);

test('test runner :: files that pass: exit 0 and every test counted', async () => {
  const run = await runner(['passes', '--jobs', '1']).done;
  assert.is(run.code, 0, run.stdout);
  assert.equal(totals(run), [2, 0]);
});

test('test runner :: a suite whose before hook threw is a failure, though uvu exits 0 and another shard skips a test', async () => {
  const run = await runner(['passes|hook-throws', '--jobs', '2']).done;
  assert.is(run.code, 1, run.stdout);
  assert.equal(totals(run), [3, 1]);
  assert.match(run.stdout, /2 shard\(s\)/);
});

test('test runner :: a shard whose tests left a timer running still ends once its files have run', async () => {
  const { child, done } = runner(['passes|leaves-a-timer', '--jobs', '1']);
  const killer = setTimeout(() => child.kill('SIGTERM'), 20_000); // passed on to the shard
  const run = await done;
  clearTimeout(killer);
  assert.is(run.code, 0, run.stdout);
  assert.equal(totals(run), [3, 0]);
});

test('test runner :: a file that does not load is a failure, and the shard runs its other files', async () => {
  const run = await runner(['passes|does-not-load', '--jobs', '1']).done;
  assert.is(run.code, 1, run.stdout);
  assert.equal(totals(run), [2, 1]);
  assert.match(run.stdout, /does-not-load\.test\.ts did not load/);
});

test("test runner :: an interrupt ends the shard and the processes its tests started; exit 130", async () => {
  const pidFile = path.join(tempDir('agent-runner-'), 'pid');
  const { child, done } = runner(['spawns-and-waits', '--jobs', '1'], { RUNNER_FIXTURE_PID_FILE: pidFile });
  const pid = await poll(async () => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8')), 'the fixture started its child');
  child.kill('SIGINT');
  const run = await done;
  assert.is(run.code, 130, run.stdout);
  await poll(async () => !isAlive(pid), "the test's child ended", 5_000);
});

test.run();
