// One shard of the suite (test/run.mjs starts these): runs the given uvu test files in this
// process, in order, and writes each file's wall time (seconds) as JSON to $TEST_TIMINGS_FILE.
// Usage: node --import tsx test/job.mjs <file relative to test/>...
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const testDir = fileURLToPath(new URL('.', import.meta.url));
const files = process.argv.slice(2);

// Interrupted (test/run.mjs passes a Ctrl-C or hang-up to the shard's group): exit, so that the exit
// handlers remove the tests' scratch directories.
for (const [signal, code] of [['SIGHUP', 129], ['SIGINT', 130], ['SIGTERM', 143]]) process.once(signal, () => process.exit(code));

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
files.forEach((file, index) => {
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE.push([file]);
});
for (const [index, file] of files.entries()) {
  globalThis.UVU_INDEX = index;
  try {
    await import(pathToFileURL(path.join(testDir, file)).href);
  } catch (error) {
    // A file that cannot load fails as one test; the shard's other files still run.
    globalThis.UVU_QUEUE[index].push(async () => [`   FAIL  ${file} did not load\n    ${error?.stack ?? error}\n`, 0, 0, 1]);
  }
}

// A file's group in uvu's queue is [name, ...its tests]: a clock entry before and after each
// group times the file (each entry reports no test: [errors, ran, skipped, total]).
const timings = {};
globalThis.UVU_QUEUE.forEach((group, index) => {
  let started = 0;
  group.splice(1, 0, async () => {
    started = performance.now();
    return ['', 0, 0, 0];
  });
  group.push(async () => {
    timings[files[index]] = Math.round((performance.now() - started) / 100) / 10;
    return ['', 0, 0, 0];
  });
});
await uvu.exec(false);
if (process.env.TEST_TIMINGS_FILE) fs.writeFileSync(process.env.TEST_TIMINGS_FILE, JSON.stringify(timings));
// Every file has run: something a test left open (an SSE client retrying a stopped service, a
// timer) must not keep the shard, and so the whole run, waiting for ever. uvu set the exit code.
process.exit();
