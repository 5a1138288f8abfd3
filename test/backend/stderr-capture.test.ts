import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatStderrEntry,
  STDERR_MAX_REPEATED_TEXTS,
  STDERR_QUEUE_HIGH_WATER,
  StderrCapture,
  type StderrCaptureOptions,
  type StderrEntry,
  type StderrLimiter,
} from '../../lib/backend/stderr-capture.ts';
import { MAX_LINE_BYTES } from '../../lib/backend/line-splitter.ts';
import { FakeClock, FakeLimiter } from './helpers/stderr-fakes.ts';

function setup(options: Partial<StderrCaptureOptions> & { points?: number } = {}) {
  const clock = new FakeClock();
  const limiter = new FakeLimiter(clock, options.points ?? 20);
  const entries: StderrEntry[] = [];
  const flow: string[] = [];
  const capture = new StderrCapture({
    emit: (entry) => entries.push(entry),
    pause: () => flow.push('pause'),
    resume: () => flow.push('resume'),
    now: clock.now,
    timers: clock,
    limiter,
    ...options,
  });
  /** The entries emitted since the last call. */
  const take = (): StderrEntry[] => entries.splice(0, entries.length);
  return { clock, limiter, capture, entries, flow, take };
}

const line = (text: string, truncated = false): StderrEntry => ({ kind: 'line', text, truncated });
const repeated = (text: string, count: number): StderrEntry => ({ kind: 'repeated', text, count });
const suppressed = (count: number): StderrEntry => ({ kind: 'suppressed', count });
const distinct = (n: number, prefix = 'line'): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

// ---------------------------------------------------------------------------------------------
// Quota
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: logs at most 20 distinct lines per window and summarizes the rest at the tick', async () => {
  const { clock, capture, take } = setup();
  for (const text of distinct(25)) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), distinct(20).map((text) => line(text)));
  clock.advance(4_999);
  assert.equal(take(), [], 'nothing before the first tick');
  clock.advance(1);
  assert.equal(take(), [suppressed(5)]);
  clock.advance(5_000);
  assert.equal(take(), [], 'no empty summary when nothing was dropped');
  capture.close();
});

test('stderr-capture :: a fresh quota after the window', async () => {
  const { clock, capture, take } = setup();
  for (const text of distinct(22, 'first')) capture.push(text, false);
  await capture.idle();
  assert.is(take().length, 20);
  clock.advance(9_999);
  for (const text of distinct(3, 'late')) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [suppressed(2)], 'still the first window (the 5 s tick summarized it)');
  clock.advance(1);
  for (const text of distinct(21, 'second')) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [suppressed(3), ...distinct(20, 'second').map((text) => line(text))]);
  await capture.flush();
  assert.equal(take(), [suppressed(1)]);
  capture.close();
});

test('stderr-capture :: a flood is dropped without consulting the limiter until the window ends', async () => {
  const { clock, limiter, capture, take } = setup();
  for (const text of distinct(21)) capture.push(text, false);
  await capture.idle();
  assert.is(limiter.calls, 21, '20 admitted and one rejection');
  for (let i = 0; i < 100_000; i++) capture.push(`flood ${i}`, false);
  await capture.idle();
  assert.is(limiter.calls, 21, 'no limiter call while blocked');
  assert.is(capture.queuedBytes, 0, 'dropped lines are not queued');
  take();
  clock.advance(5_000);
  assert.equal(take(), [suppressed(100_001)], 'the count is exact');
  clock.advance(5_000);
  capture.push('after the window', false);
  await capture.idle();
  assert.is(limiter.calls, 22);
  assert.equal(take(), [line('after the window')]);
  capture.close();
});

test('stderr-capture :: lines queued behind a pending decision keep their order', async () => {
  const { limiter, capture, take } = setup();
  let open!: () => void;
  limiter.gate = new Promise((resolve) => (open = resolve));
  for (const text of ['a', 'b', 'b', 'c']) capture.push(text, false);
  assert.equal(take(), [], 'nothing is emitted from push');
  limiter.gate = null;
  open();
  await capture.idle();
  assert.equal(take(), [line('a'), line('b'), line('c')]);
  await capture.flush();
  assert.equal(take(), [repeated('b', 1)]);
  capture.close();
});

// ---------------------------------------------------------------------------------------------
// Repeated lines
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: identical consecutive lines are logged once and counted', async () => {
  const { clock, limiter, capture, take } = setup();
  for (let i = 0; i < 5; i++) capture.push('connection refused', false);
  await capture.idle();
  assert.equal(take(), [line('connection refused')]);
  assert.is(limiter.calls, 1, 'repeats do not use the quota');
  clock.advance(5_000);
  assert.equal(take(), [repeated('connection refused', 4)]);
  // The run goes on: each tick reports what came since the last one.
  for (let i = 0; i < 3; i++) capture.push('connection refused', false);
  clock.advance(5_000);
  assert.equal(take(), [repeated('connection refused', 3)]);
  clock.advance(5_000);
  assert.equal(take(), []);
  capture.close();
});

test('stderr-capture :: repeated summaries come in one batch at most every 5 s', async () => {
  const { clock, capture, take } = setup();
  clock.advance(1_000);
  for (const text of ['b', 'b', 'c', 'c', 'c', 'd']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('b'), line('c'), line('d')]);
  clock.advance(3_999);
  assert.equal(take(), [], 'no summary before the tick');
  clock.advance(1);
  assert.equal(take(), [repeated('b', 1), repeated('c', 2)]);
  for (const text of ['e', 'e', 'f', 'f']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('e'), line('f')]);
  clock.advance(4_999);
  assert.equal(take(), [], 'the next batch waits for the next tick');
  clock.advance(1);
  assert.equal(take(), [repeated('e', 1), repeated('f', 1)]);
  capture.close();
});

test('stderr-capture :: interleaved runs A A B B A', async () => {
  const { clock, limiter, capture, take } = setup();
  for (const text of ['A', 'A', 'B', 'B', 'A']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('A'), line('B'), line('A')], 'a run that comes back is a new distinct line');
  assert.is(limiter.calls, 3);
  clock.advance(5_000);
  assert.equal(take(), [repeated('A', 1), repeated('B', 1)]);
  // The last A's run is still going on across the tick; counts of several runs of A add up.
  for (const text of ['A', 'A', 'B', 'A', 'A', 'A']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('B'), line('A')]);
  clock.advance(5_000);
  assert.equal(take(), [repeated('A', 4)]);
  capture.close();
});

test('stderr-capture :: repeats of a dropped line count as suppressed', async () => {
  const { clock, capture, take } = setup();
  for (const text of distinct(20)) capture.push(text, false);
  for (let i = 0; i < 4; i++) capture.push('over quota', false);
  await capture.idle();
  assert.is(take().length, 20);
  for (let i = 0; i < 3; i++) capture.push('still over quota', false);
  clock.advance(5_000);
  assert.equal(take(), [suppressed(7)]);
  capture.close();
});

// A backend that says 25 things at start, then retries a connection every 200 ms (an outside
// tester's reproduction): the retry's line was dropped over quota, and its copies stayed
// suppressed in every later window; the line never reached the log.
test('stderr-capture :: a repeated line that starts over quota is logged once when a new window opens, then folded', async () => {
  const { clock, limiter, capture, take } = setup();
  const error = 'ERROR: cannot connect to database db:5432 (retrying)';
  for (const text of distinct(25)) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), distinct(20).map((text) => line(text)));
  const log: [number, StderrEntry][] = [];
  for (let t = 200; t <= 30_000; t += 200) {
    clock.advance(200); // a tick due at t fires before the line written at t
    capture.push(error, false);
    await capture.idle();
    for (const entry of take()) log.push([clock.time, entry]);
  }
  assert.equal(log, [
    [5_000, suppressed(5 + 24)], // the start-up's 5 and the copies of 0.2-4.8 s
    [10_000, suppressed(25)],
    [10_000, line(error)], // the first copy in the new window takes one line of its quota
    [15_000, repeated(error, 24)],
    [20_000, repeated(error, 25)], // a run already logged takes no quota in the next window
    [25_000, repeated(error, 25)],
    [30_000, repeated(error, 25)],
  ]);
  assert.is(limiter.calls, 22, '20 lines, the rejection, the line in the new window');
  await capture.flush();
  assert.equal(take(), [repeated(error, 1)]);
  capture.close();
});

test('stderr-capture :: a suppressed run asks again in each new window until it gets a line', async () => {
  const { clock, limiter, capture, take } = setup({ points: 2 });
  for (const text of ['a', 'b', 'c']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('a'), line('b')]);
  capture.push('c', false);
  assert.is(limiter.calls, 3, 'no limiter call for a copy while the window is spent');
  clock.advance(10_000);
  assert.equal(take(), [suppressed(2)]);
  // New window, but other lines spend it before the run comes back.
  for (const text of ['d', 'e', 'c', 'c']) capture.push(text, false);
  await capture.idle();
  assert.equal(take(), [line('d'), line('e')]);
  clock.advance(10_000);
  assert.equal(take(), [suppressed(2)]);
  capture.push('c', false);
  capture.push('c', false);
  await capture.idle();
  assert.equal(take(), [line('c')]);
  clock.advance(5_000);
  assert.equal(take(), [repeated('c', 1)]);
  assert.is(limiter.calls, 7, 'a, b, c rejected; d, e, c rejected; c: one call per window, none for its copies');
  capture.close();
});

test('stderr-capture :: new limits give a suppressed run its line at once', async () => {
  const { capture, take } = setup({ points: 1 });
  capture.push('a', false);
  capture.push('b', false);
  capture.push('b', false);
  await capture.idle();
  assert.equal(take(), [line('a')]);
  capture.setLimits({ ...capture.limits, linesPerWindow: 5 }, new FakeLimiter(new FakeClock(), 5));
  assert.equal(take(), [suppressed(2)], 'what the old quota dropped');
  capture.push('b', false);
  capture.push('b', false);
  await capture.flush();
  assert.equal(take(), [line('b'), repeated('b', 1)]);
  capture.close();
});

test('stderr-capture :: repeat counts are kept for at most 20 texts per tick; the rest count as suppressed', async () => {
  const { clock, capture, take } = setup({ points: 100 });
  for (const text of distinct(25)) {
    capture.push(text, false);
    capture.push(text, false);
    capture.push(text, false);
  }
  await capture.idle();
  assert.is(take().length, 25);
  clock.advance(5_000);
  const summaries = take();
  assert.equal(summaries.slice(0, STDERR_MAX_REPEATED_TEXTS), distinct(20).map((text) => repeated(text, 2)));
  assert.equal(summaries.slice(STDERR_MAX_REPEATED_TEXTS), [suppressed(10)]);
  capture.close();
});

// ---------------------------------------------------------------------------------------------
// Text of the entries
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: the truncated flag is passed through', async () => {
  const { capture, take } = setup();
  capture.push('cut here', true);
  capture.push('whole', false);
  capture.push('whole', true); // same text, but a different line: not folded
  await capture.idle();
  assert.equal(take(), [line('cut here', true), line('whole', false), line('whole', true)]);
  capture.close();
});

test('stderr-capture :: logged lines and repeated summaries have credentials redacted, paths and addresses kept', async () => {
  const { capture, take } = setup();
  capture.push('auth failed token=abc', false);
  capture.push('\x1b[31mconnect to postgres://admin:hunter2@db.internal:5432 failed', false);
  capture.push('password=hunter2', false);
  capture.push('password=hunter2', false);
  capture.push('cannot read /home/app/.config/tool/settings.json: EACCES', false);
  capture.push('listening on 10.1.2.3:8080 and https://api.example.com/v1', false);
  await capture.idle();
  await capture.flush();
  const entries = take();
  assert.equal(entries, [
    line('auth failed token=[REDACTED]'),
    line('connect to postgres://[REDACTED]@db.internal:5432 failed'),
    line('password=[REDACTED]'),
    line('cannot read /home/app/.config/tool/settings.json: EACCES'),
    line('listening on 10.1.2.3:8080 and https://api.example.com/v1'),
    repeated('password=[REDACTED]', 1),
  ]);
  assert.not.ok(JSON.stringify(entries).includes('hunter2'));
  capture.close();
});

test('stderr-capture :: lines keep their 8 KiB cap, not the 200-character error cap', async () => {
  const { capture, take } = setup();
  const long = 'word '.repeat(1000).trim();
  capture.push(long, false);
  await capture.idle();
  const [entry] = take();
  assert.equal(entry, line(long));
  assert.ok(long.length > 200 && long.length < MAX_LINE_BYTES);
  capture.close();
});

test('stderr-capture :: empty lines are ignored', async () => {
  const { limiter, capture, take } = setup();
  capture.push('', false);
  capture.push('x', false);
  capture.push('', false);
  capture.push('x', false);
  await capture.flush();
  assert.equal(take(), [line('x'), repeated('x', 1)]);
  assert.is(limiter.calls, 1);
  capture.close();
});

test('stderr-capture :: formatStderrEntry gives the log message', () => {
  assert.is(formatStderrEntry(line('hello')), 'hello');
  assert.is(formatStderrEntry(repeated('hello', 7)), 'repeated 7 times: hello');
  assert.is(formatStderrEntry(suppressed(5)), 'suppressed 5 lines');
});

// ---------------------------------------------------------------------------------------------
// Backpressure
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: pauses the stream above 1 MiB queued and resumes below half of it', async () => {
  const { limiter, capture, flow, take } = setup();
  let open!: () => void;
  limiter.gate = new Promise((resolve) => (open = resolve));
  const big = 'x'.repeat(MAX_LINE_BYTES - 16);
  let pushed = 0;
  let before = 0;
  while (flow.length === 0 && pushed < 1000) {
    before = capture.queuedBytes;
    capture.push(`${big} ${pushed++}`, false);
  }
  assert.equal(flow, ['pause']);
  assert.ok(before <= STDERR_QUEUE_HIGH_WATER, 'not paused earlier');
  assert.ok(capture.queuedBytes > STDERR_QUEUE_HIGH_WATER, 'paused once over 1 MiB');
  assert.ok(pushed > 100 && pushed < 140);
  capture.push(`${big} more`, false); // a stream may still deliver a chunk already read
  assert.equal(flow, ['pause'], 'pause is called once');

  limiter.gate = null;
  open();
  await capture.idle();
  assert.equal(flow, ['pause', 'resume']);
  assert.is(capture.queuedBytes, 0);
  const entries = take();
  assert.is(entries.filter((e) => e.kind === 'line').length, 20);
  await capture.flush();
  assert.equal(take(), [suppressed(pushed + 1 - 20)]);
  capture.close();
});

test('stderr-capture :: resume is called when the queue falls below half, while lines are still queued', async () => {
  const clock = new FakeClock();
  const gates: Array<() => void> = [];
  // Every decision waits for the test; quota never runs out.
  const limiter: StderrLimiter = {
    consume: () => new Promise((resolve) => gates.push(() => resolve({ msBeforeNext: 0 }))),
  };
  const flow: Array<[string, number]> = [];
  let capture!: StderrCapture;
  capture = new StderrCapture({
    emit: () => undefined,
    pause: () => flow.push(['pause', capture.queuedBytes]),
    resume: () => flow.push(['resume', capture.queuedBytes]),
    now: clock.now,
    timers: clock,
    limiter,
  });
  const lineBytes = 64 * 1024;
  for (let i = 0; i < 17; i++) capture.push(`${i}`.padEnd(lineBytes, '.'), false); // 17 x 64 KiB > 1 MiB
  assert.is(flow.length, 1);
  assert.is(flow[0]![0], 'pause');
  const decideOne = async () => {
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  let decided = 0;
  while (flow.length === 1) {
    await decideOne();
    decided++;
  }
  assert.is(flow[1]![0], 'resume');
  assert.ok(flow[1]![1] < STDERR_QUEUE_HIGH_WATER / 2, 'resumed below 512 KiB');
  assert.ok(flow[1]![1] >= STDERR_QUEUE_HIGH_WATER / 2 - lineBytes - 1024, 'and not later than needed');
  assert.ok(capture.queuedBytes > 0, 'lines still queued');
  assert.is(decided, 17 - Math.floor(flow[1]![1] / lineBytes));
  while (gates.length > 0) await decideOne();
  await capture.idle();
  assert.is(flow.length, 2);
  capture.close();
});

// ---------------------------------------------------------------------------------------------
// flush and close
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: flush emits pending summaries at once', async () => {
  const { clock, capture, take } = setup();
  for (const text of [...distinct(19), 'last', 'last', 'last', 'dropped', 'dropped 2']) capture.push(text, false);
  clock.advance(1_000);
  await capture.flush();
  assert.equal(take().slice(-2), [repeated('last', 2), suppressed(2)]);
  clock.advance(4_000);
  assert.equal(take(), [], 'the tick after a flush has nothing left');
  capture.close();
});

test('stderr-capture :: after flush the same line starts a new run', async () => {
  const { capture, take } = setup();
  capture.push('ready', false);
  await capture.flush();
  capture.push('ready', false); // a restarted child says it again
  await capture.flush();
  assert.equal(take(), [line('ready'), line('ready')]);
  capture.close();
});

test('stderr-capture :: close stops the ticker and ignores later lines', async () => {
  const { clock, capture, take } = setup();
  assert.is(clock.activeIntervals, 1);
  capture.push('a', false);
  capture.push('a', false);
  await capture.idle();
  capture.close();
  assert.is(clock.activeIntervals, 0);
  capture.push('b', false);
  await capture.idle();
  clock.advance(10_000);
  await capture.flush();
  assert.equal(take(), [line('a')]);
});

test('stderr-capture :: close resumes a paused stream', async () => {
  const { limiter, capture, flow } = setup();
  limiter.gate = new Promise(() => undefined);
  for (let i = 0; i < 20; i++) capture.push(`${i}`.padEnd(64 * 1024, '.'), false);
  assert.equal(flow, ['pause']);
  capture.close();
  assert.equal(flow, ['pause', 'resume']);
  assert.is(capture.queuedBytes, 0);
});

test('stderr-capture :: a limiter failure drops the line and is reported', async () => {
  const errors: unknown[] = [];
  const failure = new Error('limiter broke');
  const { capture, take } = setup({ limiter: { consume: () => Promise.reject(failure) }, onError: (error) => errors.push(error) });
  capture.push('x', false);
  await capture.flush();
  assert.equal(take(), [suppressed(1)]);
  assert.equal(errors, [failure]);
  capture.close();
});

// ---------------------------------------------------------------------------------------------
// The default limiter (rate-limiter-flexible's RateLimiterMemory)
// ---------------------------------------------------------------------------------------------

test('stderr-capture :: with the default RateLimiterMemory, 25 distinct lines log 20 and suppress 5', async () => {
  const clock = new FakeClock(); // drives only the ticker; the limiter uses the real clock
  const entries: StderrEntry[] = [];
  const errors: unknown[] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), timers: clock, onError: (error) => errors.push(error) });
  for (const text of distinct(25)) capture.push(text, false);
  await capture.flush();
  assert.equal(entries, [...distinct(20).map((text) => line(text)), suppressed(5)]);
  assert.equal(errors, [], 'the rejection is recognized as a RateLimiterRes, not reported as a failure');
  capture.close();
});

test.run();
