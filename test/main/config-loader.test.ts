// The config loader settles every load, whatever happens to its worker: a worker that cannot
// start (this process out of file descriptors) fails the load within the timeout, and a load
// pending when the loader closes ends with it; the next load starts a new worker, and the
// process lives on (the service's guard, worker-start-failure.ts, is installed here too).
// The process's own soft limit is lowered with prlimit (util-linux) and restored.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigLocation } from '../../lib/config/paths.ts';
import { ConfigLoader } from '../../lib/main/config-loader.ts';
import { survivesWorkerStartFailures } from '../../lib/main/worker-start-failure.ts';
import { tempDir } from '../helpers/service.ts';

// As in the service: a worker that cannot start is reported, not fatal.
const startFailures: string[] = [];
survivesWorkerStartFailures((error) => void startFailures.push(error.message));
const dir = tempDir('agent-config-loader-');
fs.writeFileSync(path.join(dir, 'mcp.json'), '{"mcpServers":{}}');
const location = { file: path.join(dir, 'mcp.json'), dir } as ConfigLocation;
const softLimit = () => Number(/Max open files\s+(\d+)/.exec(fs.readFileSync('/proc/self/limits', 'utf8'))![1]);
const setSoftLimit = (limit: number) => execFileSync('prlimit', [`--pid=${process.pid}`, `--nofile=${limit}:`]);
const settled = (p: Promise<unknown>, ms: number) => Promise.race([p.then((r) => ({ settled: true, r }), (e: Error) => ({ settled: true, r: e.message })), new Promise<{ settled: false }>((r) => setTimeout(r, ms, { settled: false }))]);

// Runs `body` with every file descriptor this process may open in use.
async function outOfDescriptors<T>(body: () => Promise<T>): Promise<T> {
  const original = softLimit();
  setSoftLimit(fs.readdirSync('/proc/self/fd').length + 16);
  const held: number[] = [];
  try {
    for (;;) held.push(fs.openSync('/dev/null', 'r'));
  } catch {
    /* all taken */
  }
  try {
    return await body();
  } finally {
    for (const fd of held) fs.closeSync(fd);
    setSoftLimit(original);
  }
}

test('config loader :: out of descriptors, a load settles within the timeout; with descriptors back, the next one loads', async () => {
  const loader = new ConfigLoader(0, 5_000);
  try {
    const outcome = await outOfDescriptors(() => settled(loader.load(location, {}), 12_000));
    assert.ok(outcome.settled, 'the load settled (failed or rejected) instead of waiting for a worker');
    const next = await loader.load(location, {});
    assert.ok(next.ok, 'the next load works');
  } finally {
    await loader.close();
  }
});

test('config loader :: a load pending when the loader closes ends at once', async () => {
  const loader = new ConfigLoader(0, 60_000);
  const outcome = await outOfDescriptors(async () => {
    const pending = loader.load(location, {});
    await new Promise((r) => setTimeout(r, 300));
    await loader.close();
    return settled(pending, 2_000);
  });
  assert.ok(outcome.settled, 'settled at close');
});

test.run();
