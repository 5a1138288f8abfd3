// Worker entry of floor/spawn.mjs. `empty`: a worker thread that loads nothing (the per-worker
// floor: isolate, Node's bootstrap, the thread). `sdk`: compiles the sdk-worker bundle with the
// code cache in workerData (as workers/script-loader.cjs does for the service), or makes one for
// the next workers once its handshake is done.
'use strict';
const fs = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');

if (workerData.kind === 'empty') {
    parentPort.postMessage({ type: 'up' });
    parentPort.once('message', () => process.exit(0));
} else {
    const { bundle, cache } = workerData;
    const source = `(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(bundle, 'utf8')}\n})`;
    const cachedData = cache ? Buffer.from(cache) : undefined;
    const script = new vm.Script(source, { filename: bundle, cachedData });
    globalThis[Symbol.for('floor.makeCache')] = () => {
        if (!cachedData) parentPort.postMessage({ type: 'cache', data: script.createCachedData() });
    };
    const bundleModule = { exports: {} };
    script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, path.dirname(bundle));
}
