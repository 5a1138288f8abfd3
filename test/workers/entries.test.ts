// The main thread makes the hub's and the configuration pool's threads, which start at its
// priority. Each entry lowers its thread before it loads anything heavy (the SDK, zod, the hub's or
// the configuration's code): its static imports are node's own modules and the priority module,
// and the rest comes by import() after the call. An entry that imported the rest statically would
// load it at the probe path's priority at every hub start and every configuration load.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { MODULE_LOADER } from '../../lib/shared/worker-entry.ts';
import { runtimeImports } from '../helpers/imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRIORITY = '../lib/shared/priority.ts';

function staticImports(file: string): string[] {
  return runtimeImports(fs.readFileSync(path.join(ROOT, file), 'utf8'), { dynamic: false });
}

for (const entry of ['workers/hub.ts', 'workers/config.ts']) {
  test(`worker entries :: ${entry} loads only node's modules and the priority module before it lowers its thread`, () => {
    const heavy = staticImports(entry).filter((specifier) => !specifier.startsWith('node:') && specifier !== PRIORITY);
    assert.equal(heavy, [], `${entry} imports these statically: they load before its priority is lowered`);
    const source = fs.readFileSync(path.join(ROOT, entry), 'utf8');
    const lowered = source.indexOf('lowerThreadPriority(');
    const firstLoad = source.search(/await import\(/);
    assert.ok(lowered > 0 && firstLoad > lowered, `${entry} lowers its priority, then imports its code`);
  });
}

test('worker entries :: the priority module itself loads nothing but node modules', () => {
  assert.equal(staticImports('lib/shared/priority.ts').filter((specifier) => !specifier.startsWith('node:')), []);
});

// A bundle whose first statement reads its thread's nice value: what it was when its code began.
const NICE_AT_LOAD = `import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
const link = fs.readlinkSync('/proc/thread-self');
const atLoad = os.getPriority(Number(link.slice(link.lastIndexOf('/') + 1)));
if (workerData.report) parentPort.postMessage(atLoad);
export default () => atLoad;
`;

function bundleFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-module-loader-'));
  const file = path.join(dir, 'bundle.mjs');
  fs.writeFileSync(file, NICE_AT_LOAD);
  return file;
}

test('worker entries :: the module loader lowers a thread before the bundle it loads begins (a hub)', async () => {
  const file = bundleFile();
  try {
    const worker = new Worker(MODULE_LOADER, { workerData: { bundle: pathToFileURL(file).href, nice: 7, report: true } });
    const atLoad = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    assert.is(atLoad, 7);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('worker entries :: the module loader lowers a piscina thread before its task module begins (the configuration pool)', async () => {
  const file = bundleFile();
  const pool = new Piscina({ filename: MODULE_LOADER, workerData: { bundle: pathToFileURL(file).href, nice: 6 }, maxThreads: 1 });
  try {
    assert.is(await pool.run(null), 6);
  } finally {
    await pool.destroy();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('worker entries :: the tsx bootstraps lower a thread before tsx and the entry load (running from source)', async () => {
  const file = bundleFile();
  try {
    for (const bootstrap of ['bootstrap.mjs', 'task-bootstrap.mjs']) {
      const worker = new Worker(path.join(ROOT, 'workers', bootstrap), { workerData: { entry: pathToFileURL(file).href, nice: 5, report: true } });
      const atLoad = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
      await worker.terminate();
      assert.is(atLoad, 5, bootstrap);
    }
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test.run();
