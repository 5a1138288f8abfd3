// Backend worker entry when the backend bundle is built (build/workers/backend.cjs): lowers the
// thread's priority first, then compiles the bundle with the V8 code cache the main thread hands
// over in workerData (a SharedArrayBuffer, shared, not copied), so each worker deserializes code
// instead of compiling about 550 KB again. A worker that got no cache, or one V8 refused, makes one
// when the bundle asks (lib/backend/code-cache-hook.ts: after its backend's first connect, when
// the code that connects has been compiled too) and sends it to the main thread for the others.
// CommonJS on purpose: a worker whose entry is an ES module also sets up the ES module loader
// (about 0.4 MB more per worker, benchmarks/README.md).
'use strict';
const fs = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const { lowerPriority } = require('./thread-priority.cjs');

const { bundle, cache, cacheFile, make = true } = workerData.loader;

// Before the compile: a worker's start must not compete with the probe path.
lowerPriority(Number(workerData.nice ?? 0));

const source = `(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(bundle, 'utf8')}\n})`;
const cachedData = cache ? Buffer.from(cache) : undefined;
// A dynamic import() in the bundle (a dependency's rare path) loads as it would in a module.
const importModuleDynamically = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
const script = new vm.Script(source, { filename: bundle, cachedData, ...(importModuleDynamically ? { importModuleDynamically } : {}) });
const outcome = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted';

let made = false;
// Called by the bundle (code-cache-hook.ts); makes and sends a cache once, unless V8 took the one given.
function makeCache() {
  if (made || !make || outcome === 'accepted') return;
  made = true;
  const data = script.createCachedData();
  const shared = new SharedArrayBuffer(data.length);
  new Uint8Array(shared).set(data);
  parentPort.postMessage({ v: 1, type: 'codeCache', data: shared });
  if (cacheFile) {
    // Kept for the next start of the service; written beside, then renamed, so a reader never sees half.
    // Its own directory only: a state directory removed meanwhile is not made again here (it raced
    // the service's own remaking of it, and a configuration directory is never made by the service).
    const temporary = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
    fs.promises
      .mkdir(path.dirname(cacheFile))
      .catch((error) => {
        if (error.code !== 'EEXIST') throw error;
      })
      .then(() => fs.promises.writeFile(temporary, data))
      .then(() => fs.promises.rename(temporary, cacheFile))
      .catch(() => fs.promises.rm(temporary, { force: true }).catch(() => undefined));
  }
}
globalThis[Symbol.for('agent.codeCache')] = { outcome, makeCache };

const bundleModule = { exports: {} };
script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, path.dirname(bundle));
