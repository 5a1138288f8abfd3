// A backend worker thread that fails anyway ends its child and waits until the child is reaped
// before it goes. Fixture workers load the real entry and fail when told to; they run from an
// esbuild bundle (as the service runs its workers) so that 100 of them start quickly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { build } from 'esbuild';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendApi, BackendWorkerData, WorkerEvent } from '../../lib/shared/messages/state-events.ts';
import { DEFAULT_STDERR_LIMITS } from '../../lib/shared/stderr-limits.ts';
import { isAlive } from '../helpers/processes.ts';
import { commandSpec, FIXTURES } from './helpers/runner-harness.ts';

const RUNS = 100;
const CONCURRENCY = 2;
const FIXTURE_NAMES = ['throws-after-spawn', 'exits-after-spawn', 'rejects-after-spawn'] as const;
type FixtureName = (typeof FIXTURE_NAMES)[number];

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worker-fixtures-'));
const bundles = {} as Record<FixtureName, string>;
const spawned: number[] = [];

test.before(async () => {
  await build({
    entryPoints: Object.fromEntries(FIXTURE_NAMES.map((name) => [name, path.join(FIXTURES, 'workers', `${name}.ts`)])),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    logLevel: 'warning',
    // CommonJS dependencies inside an ES module bundle still call require() (as scripts/bundle-workers.mjs).
    banner: { js: "import { createRequire as __agentCreateRequire } from 'node:module'; const require = __agentCreateRequire(import.meta.url);" },
  });
  for (const name of FIXTURE_NAMES) bundles[name] = path.join(outDir, `${name}.mjs`);
});

test.after(() => {
  // Should a child have survived (the defect), it must not outlive the test run.
  for (const pid of spawned.filter(isAlive)) process.kill(-pid, 'SIGKILL');
  fs.rmSync(outDir, { recursive: true, force: true });
});

// Children of this process that are zombies: exited, never reaped.
function zombieChildren(): number[] {
  const zombies: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (/^PPid:\s+(\d+)$/m.exec(status)?.[1] === String(process.pid) && /^State:\s+Z/m.test(status)) zombies.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return zombies;
}

type Run = { events: WorkerEvent[]; code: number; pid: number; aliveAfter: boolean };

// Starts the fixture worker with a cheap child, tells it to fail once the child runs, and waits
// until the thread has exited (or, for a rejection, stops it normally).
async function runOnce(fixture: FixtureName): Promise<Run> {
  const channel = new MessageChannel();
  const workerData: BackendWorkerData = {
    spec: commandSpec('sleeper', 'sleep', ['30'], { stderr: 'ignore', connectionTimeout: 60_000 }),
    api: channel.port2,
    log: { level: 'fatal', format: 'json' },
    pingIntervalMs: 60_000,
    pingTimeoutMs: 5_000,
    maxMessageBytes: 1024 * 1024,
    stateDir: null,
    nice: 0,
    stderrLimits: DEFAULT_STDERR_LIMITS,
  };
  // execArgv: [] — a plain bundle needs no tsx, whose loader hooks would slow every worker down.
  const worker = new Worker(bundles[fixture], { workerData, transferList: [channel.port2], stdout: true, stderr: true, execArgv: [] });
  const api = Comlink.wrap<BackendApi>(nodeEndpoint(channel.port1));
  const events: WorkerEvent[] = [];
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let wake = () => undefined as void;
  worker.on('message', (event: WorkerEvent) => {
    events.push(event);
    wake();
  });
  worker.on('error', () => undefined); // the defect: an uncaught error reaches here
  const next = (type: WorkerEvent['type']) =>
    new Promise<WorkerEvent>((resolve, reject) => {
      const check = () => {
        const found = events.find((e) => e.type === type);
        if (found) resolve(found);
      };
      wake = check;
      check();
      void exited.then(() => reject(new Error(`worker exited before '${type}'; events: ${events.map((e) => e.type).join(', ')}`)));
    });
  try {
    await next('ready');
    void api.start().catch(() => undefined);
    const connecting = await next('connecting');
    const pid = (connecting as Extract<WorkerEvent, { type: 'connecting' }>).pid!;
    spawned.push(pid);
    worker.postMessage('fail');
    if (fixture === 'rejects-after-spawn') {
      await next('log');
      const aliveAfter = isAlive(pid);
      await api.stop({ graceMs: 100 });
      await worker.terminate();
      return { events, code: await exited, pid, aliveAfter };
    }
    const code = await exited;
    return { events, code, pid, aliveAfter: isAlive(pid) };
  } finally {
    api[Comlink.releaseProxy]();
    channel.port1.close();
    await worker.terminate();
  }
}

function checkFailure(run: Run, expectedCode: number, reason: RegExp): void {
  assert.is(run.code, expectedCode, 'the thread exits with a non-zero code');
  assert.not.ok(run.aliveAfter, 'the child did not outlive its worker');
  const log = run.events.find((e) => e.type === 'log');
  const failed = run.events.find((e) => e.type === 'failed');
  assert.ok(log && log.type === 'log' && log.level === 'error', JSON.stringify(run.events));
  assert.match(String(log.fields.error), reason);
  assert.ok(failed && failed.type === 'failed', JSON.stringify(run.events));
  assert.is(failed.error.name, 'WorkerFailed');
  assert.match(failed.error.message, reason);
  assert.equal(failed.exit && { pid: failed.exit.pid, signal: failed.exit.signal }, { pid: run.pid, signal: 'SIGKILL' });
}

async function repeat(fixture: FixtureName, runs: number, check: (run: Run) => void): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < runs) {
      started++;
      check(await runOnce(fixture));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

test(`worker failure :: an uncaught exception ends the child, waits for it, reports, and exits (${RUNS / 2} runs)`, async () => {
  await repeat('throws-after-spawn', RUNS / 2, (run) => checkFailure(run, 1, /uncaught exception: fixture: cannot read \/srv\/agent\/settings\.json with token=\[REDACTED\]/));
  assert.equal(zombieChildren(), []);
});

test(`worker failure :: process.exit() from a library ends the child, waits for it, reports, and exits (${RUNS / 2} runs)`, async () => {
  await repeat('exits-after-spawn', RUNS / 2, (run) => checkFailure(run, 70, /process\.exit\(70\) was called in the backend worker/));
  assert.equal(zombieChildren(), []);
});

test('worker failure :: no child survived any of them', () => {
  assert.equal(spawned.filter(isAlive), []);
  assert.is(spawned.length, RUNS);
  assert.equal(zombieChildren(), []);
});

test('worker failure :: an unhandled rejection is logged with the path kept, and the worker goes on', async () => {
  const run = await runOnce('rejects-after-spawn');
  assert.ok(run.aliveAfter, 'the child still ran after the rejection');
  const log = run.events.find((e) => e.type === 'log');
  assert.ok(log && log.type === 'log' && log.level === 'error');
  assert.is(log.msg, 'unhandled rejection in backend worker');
  assert.is(log.fields.error, 'fixture: lost /srv/agent/cache.db password=[REDACTED]');
  assert.not.ok(run.events.some((e) => e.type === 'failed'));
  assert.ok(run.events.some((e) => e.type === 'stopped'), 'stopped normally');
  assert.not.ok(isAlive(run.pid));
  assert.equal(zombieChildren(), []);
});

test.run();
