// Runs every uvu test file (fixtures and helpers excluded) and ends with `N passed, N failed`.
// The files are split into shards that run side by side (most of the suite waits on child
// processes, sockets and timeouts: one shard kept 2 cores about 60 % busy), balanced by the
// wall times in test/durations.json (longest first onto the shard with least work).
// Each shard is one process with its own runtime directory, so services that announce
// themselves (lib/control/discovery.ts) never meet another shard's.
// Usage: node test/run.mjs [pattern] [--jobs n] [--record] [--dir d]
//   pattern   only files whose path matches, e.g. `node test/run.mjs health`
//   --jobs n  shards (default $AGENT_TEST_JOBS, else 2); 1 runs everything in one process
//   --record  writes the files' measured wall times into test/durations.json
//   --dir d   the folder under test/ to look in (default all of test/; the runner's own test
//             points it at test/fixtures/runner)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const testDir = path.join(root, 'test');
const durationsFile = path.join(testDir, 'durations.json');
// A file the table does not know yet is assumed this long (seconds).
const UNKNOWN_SECONDS = 3;

let record = false;
let jobsText = process.env.AGENT_TEST_JOBS || '2';
let patternText = '\\.test\\.ts$';
let dir = '';
for (const args = process.argv.slice(2); args.length; ) {
  const arg = args.shift();
  if (arg === '--record') record = true;
  else if (arg === '--jobs') jobsText = args.shift() ?? '';
  else if (arg === '--dir') dir = args.shift() ?? '';
  else patternText = arg;
}
const jobs = Number(jobsText);
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`test/run.mjs: --jobs (or AGENT_TEST_JOBS) must be a whole number of 1 or more; found '${jobsText}'`);
  process.exit(2);
}
const pattern = new RegExp(patternText);

const files = (dir ? testFiles(path.join(testDir, dir), dir) : testFiles(testDir)).filter((file) => pattern.test(file));
if (files.length === 0) {
  console.error(`test/run.mjs: no test file matches ${pattern}`);
  process.exit(1);
}
const known = fs.existsSync(durationsFile) ? JSON.parse(fs.readFileSync(durationsFile, 'utf8')) : {};
const shards = partition(files, Math.min(jobs, files.length), (file) => known[file] ?? UNKNOWN_SECONDS);

// Shards run in process groups of their own (detached): a terminal's Ctrl-C or hang-up reaches
// only this process, which passes it on to every group still running; should this process end
// any other way first (an uncaught error, a broken output pipe), the groups are ended too.
const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
const running = new Set();
let interrupted = null;
const signalShards = (signal) => {
  for (const pid of running) {
    try {
      process.kill(-pid, signal);
    } catch {
      /* that shard has ended */
    }
  }
};
for (const signal of Object.keys(SIGNAL_EXIT_CODES)) {
  process.on(signal, () => {
    interrupted = signal;
    signalShards(signal);
  });
}
process.on('exit', () => signalShards('SIGTERM'));
const started = performance.now();
const results = await Promise.all(shards.map((shard, index) => runShard(shard, index)));
for (const result of results.slice(1)) process.stdout.write(result.output);

const sum = (key) => results.reduce((total, r) => total + r[key], 0);
const [total, passed, skipped] = [sum('total'), sum('passed'), sum('skipped')];
// uvu's Total leaves skipped tests out and counts the tests of a suite whose `before` hook threw
// (uvu then exits 0 with them unrun): every test counted and not passed is a failure. A shard
// that crashed or printed no summary counts as at least one, so it can never read as green.
const failed = results.reduce((n, r) => n + (r.code === 0 && r.summarized ? r.total - r.passed : Math.max(1, r.total - r.passed)), 0);
const timings = Object.assign({}, ...results.map((r) => r.timings));
const slowest = Object.entries(timings).sort((a, b) => b[1] - a[1]).slice(0, 5);
process.stdout.write(`\n${shards.length} shard(s): ${results.map((r) => `${r.files} files in ${r.seconds} s`).join(', ')}; wall ${seconds(started)} s`);
if (slowest.length) process.stdout.write(`; slowest: ${slowest.map(([file, s]) => `${file} ${s} s`).join(', ')}`);
if (record) {
  fs.writeFileSync(durationsFile, `${JSON.stringify(Object.fromEntries(Object.entries({ ...known, ...timings }).sort()), null, 2)}\n`);
  process.stdout.write(`\nwall times written to ${path.relative(root, durationsFile)}`);
}
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
// Interrupted: the shell's convention, 128 + the signal's number.
if (interrupted) process.exit(SIGNAL_EXIT_CODES[interrupted]);
process.exit(failed === 0 && total > 0 ? 0 : 1);

function testFiles(folder, prefix = '') {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'fixtures' || entry.name === 'helpers') return [];
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return testFiles(path.join(folder, entry.name), relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  }).sort();
}

// Longest first, each onto the shard with the least work so far; a shard keeps the files' order.
function partition(list, count, weight) {
  const bins = Array.from({ length: count }, () => ({ load: 0, files: [] }));
  for (const file of [...list].sort((a, b) => weight(b) - weight(a))) {
    const lightest = bins.reduce((min, bin) => (bin.load < min.load ? bin : min));
    lightest.load += weight(file);
    lightest.files.push(file);
  }
  return bins.filter((bin) => bin.files.length).map((bin) => bin.files.sort());
}

// Shard 0 prints as it runs; the others' output follows once all are done, whole.
function runShard(shardFiles, index) {
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), `agent-test-runtime-${index}-`));
  const timingsFile = path.join(runtime, 'timings.json');
  const begun = performance.now();
  // Its own process group: an interrupt reaches the shard and every service its tests started.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(testDir, 'job.mjs'), ...shardFiles], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, XDG_RUNTIME_DIR: runtime, TEST_TIMINGS_FILE: timingsFile, FORCE_COLOR: '0' },
  });
  let output = shards.length > 1 ? `\n── shard ${index + 1} of ${shards.length}: ${shardFiles.length} files ──\n` : '';
  if (index === 0) process.stdout.write(output);
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (index === 0) process.stdout.write(chunk);
  });
  running.add(child.pid);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      running.delete(child.pid);
      // The last summary line of each kind: a test's own output may contain the words.
      const count = (label) => Number([...output.matchAll(new RegExp(`^  ${label}:\\s+(\\d+)`, 'gm'))].at(-1)?.[1] ?? 0);
      const timings = fs.existsSync(timingsFile) ? JSON.parse(fs.readFileSync(timingsFile, 'utf8')) : {};
      fs.rmSync(runtime, { recursive: true, force: true });
      const summarized = /^ {2}Duration:/m.test(output);
      resolve({ output: index === 0 ? '' : output, code, summarized, total: count('Total'), passed: count('Passed'), skipped: count('Skipped'), timings, files: shardFiles.length, seconds: seconds(begun) });
    });
  });
}

function seconds(since) {
  return Math.round((performance.now() - since) / 100) / 10;
}
