// The stderr capture with limits other than the spec's, and switching limits while it runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StderrCapture, type StderrEntry, type StderrLimiter } from '../../lib/backend/stderr-capture.ts';
import { DEFAULT_STDERR_LIMITS, type StderrLimits } from '../../lib/shared/stderr-limits.ts';
import { FakeClock, FakeLimiter } from './helpers/stderr-fakes.ts';

const line = (text: string, truncated = false): StderrEntry => ({ kind: 'line', text, truncated });
const repeated = (text: string, count: number): StderrEntry => ({ kind: 'repeated', text, count });
const suppressed = (count: number): StderrEntry => ({ kind: 'suppressed', count });

const limitsOf = (partial: Partial<StderrLimits>): StderrLimits => ({ ...DEFAULT_STDERR_LIMITS, ...partial });
const limiterFor = (clock: FakeClock, limits: StderrLimits) => new FakeLimiter(clock, limits.linesPerWindow, limits.windowSeconds * 1000);

function setup(partial: Partial<StderrLimits>) {
  const clock = new FakeClock();
  const limits = limitsOf(partial);
  const entries: StderrEntry[] = [];
  const flow: string[] = [];
  const lineBytes: number[] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), now: clock.now, timers: clock, limits, limiter: limiterFor(clock, limits) });
  capture.attach({ pause: () => flow.push('pause'), resume: () => flow.push('resume'), setLineBytes: (bytes) => lineBytes.push(bytes) });
  const take = () => entries.splice(0, entries.length);
  const push = async (...lines: string[]) => {
    for (const text of lines) capture.push(text, false);
    await capture.idle();
  };
  /** Switches to `partial` (over the defaults) with a fake limiter of those limits. */
  const set = (next: Partial<StderrLimits>) => capture.setLimits(limitsOf(next), limiterFor(clock, limitsOf(next)));
  return { clock, capture, take, push, set, flow, lineBytes };
}

// ---------------------------------------------------------------------------------------------
// Non-default limits, as a table: lines pushed, time advanced, what is emitted at each point.
// ---------------------------------------------------------------------------------------------

type Step = { push: string[] } | { advance: number } | { expect: StderrEntry[] } | 'flush';
const distinct = (n: number, prefix = 'line'): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const long = 'word '.repeat(2_000).trim(); // 10 KiB: over the default cut, under 16 KiB

const cases: Array<[title: string, limits: Partial<StderrLimits>, steps: Step[]]> = [
  ['linesPerWindow 3 logs three distinct lines, then suppresses', { linesPerWindow: 3 }, [
    { push: distinct(5) },
    { expect: distinct(3).map((t) => line(t)) },
    { advance: 5_000 },
    { expect: [suppressed(2)] },
  ]],
  ['linesPerWindow 1000 logs far more than 20', { linesPerWindow: 1000 }, [
    { push: distinct(500) },
    { expect: distinct(500).map((t) => line(t)) },
  ]],
  ['windowSeconds 2 gives a fresh quota after 2 s', { linesPerWindow: 2, windowSeconds: 2 }, [
    { push: ['a', 'b', 'c'] },
    { expect: [line('a'), line('b')] },
    { advance: 1_999 },
    { push: ['d'] },
    { expect: [] },
    { advance: 1 },
    { push: ['e', 'f', 'g'] },
    { expect: [line('e'), line('f')] },
    'flush',
    { expect: [suppressed(3)] },
  ]],
  ['summaryIntervalSeconds 1 summarizes every second', { summaryIntervalSeconds: 1 }, [
    { push: ['x', 'x', 'x'] },
    { expect: [line('x')] },
    { advance: 999 },
    { expect: [] },
    { advance: 1 },
    { expect: [repeated('x', 2)] },
    { push: ['x'] },
    { advance: 1_000 },
    { expect: [repeated('x', 1)] },
  ]],
  ['summaryIntervalSeconds 60 gives no summary at 5 s', { summaryIntervalSeconds: 60, linesPerWindow: 1 }, [
    { push: ['a', 'b', 'b'] },
    { advance: 59_999 },
    { expect: [line('a')] },
    { advance: 1 },
    { expect: [suppressed(2)] },
  ]],
  ['lineBytes 16 KiB logs a 10 KiB line whole', { lineBytes: 16 * 1024 }, [
    { push: [long] },
    { expect: [line(long)] },
  ]],
];

for (const [title, limits, steps] of cases) {
  test(`stderr-limits :: ${title}`, async () => {
    const { clock, capture, take, push } = setup(limits);
    for (const [i, step] of steps.entries()) {
      if (step === 'flush') await capture.flush();
      else if ('push' in step) await push(...step.push);
      else if ('advance' in step) clock.advance(step.advance);
      else assert.equal(take(), step.expect, `step ${i}`);
    }
    capture.close();
  });
}

test('stderr-limits :: the default 8 KiB cut applies to the logged text too', async () => {
  const { capture, take, push } = setup({});
  await push(long);
  const [entry] = take();
  assert.ok(entry?.kind === 'line' && entry.text.length <= DEFAULT_STDERR_LIMITS.lineBytes && entry.text.length < long.length);
  capture.close();
});

test('stderr-limits :: queueHighWaterBytes 1000 pauses above 1000 queued bytes and resumes below 500', async () => {
  const clock = new FakeClock();
  const limiter = new FakeLimiter(clock, 100);
  let open!: () => void;
  limiter.gate = new Promise((resolve) => (open = resolve));
  const flow: [string, number][] = [];
  let capture!: StderrCapture;
  capture = new StderrCapture({ emit: () => undefined, now: clock.now, timers: clock, limits: limitsOf({ queueHighWaterBytes: 1000 }), limiter });
  capture.attach({ pause: () => flow.push(['pause', capture.queuedBytes]), resume: () => flow.push(['resume', capture.queuedBytes]), setLineBytes: () => undefined });
  for (let i = 0; flow.length === 0; i++) capture.push(`line ${i}`.padEnd(100, '.'), false);
  assert.is(flow[0]![0], 'pause');
  assert.ok(flow[0]![1] > 1000 && flow[0]![1] <= 1000 + 164, `paused at ${flow[0]![1]} bytes`);
  limiter.gate = null;
  open();
  await capture.idle();
  assert.is(flow[1]![0], 'resume');
  assert.ok(flow[1]![1] < 500, `resumed at ${flow[1]![1]} bytes`);
  capture.close();
});

test('stderr-limits :: without a limiter given, the capture makes one of its limits', async () => {
  const clock = new FakeClock(); // the ticker only; RateLimiterMemory keeps real time
  const entries: StderrEntry[] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), timers: clock, limits: limitsOf({ linesPerWindow: 3 }) });
  for (const text of distinct(5)) capture.push(text, false);
  await capture.flush();
  assert.equal(entries.splice(0), [...distinct(3).map((t) => line(t)), suppressed(2)]);
  capture.setLimits(limitsOf({ linesPerWindow: 1 }));
  for (const text of distinct(3, 'next')) capture.push(text, false);
  await capture.flush();
  assert.equal(entries, [line('next 1'), suppressed(2)], 'setLimits without a limiter makes a new one of the new limits');
  capture.close();
});

// ---------------------------------------------------------------------------------------------
// Switching limits while the capture runs
// ---------------------------------------------------------------------------------------------

test('stderr-limits :: a lowered quota applies at once, in a new window', async () => {
  const { clock, capture, take, push, set } = setup({});
  await push(...distinct(5, 'before'));
  assert.is(take().length, 5);
  set({ linesPerWindow: 2 });
  await push(...distinct(5, 'after'));
  assert.equal(take(), [line('after 1'), line('after 2')]);
  clock.advance(5_000);
  assert.equal(take(), [suppressed(3)]);
  capture.close();
});

test('stderr-limits :: a raised quota ends a block at once; what was pending is summarized at the switch', async () => {
  const { capture, take, push, set } = setup({ linesPerWindow: 1 });
  await push('a', 'b', 'c', 'c');
  assert.equal(take(), [line('a')]);
  set({ linesPerWindow: 5 });
  assert.equal(take(), [suppressed(3)], 'counted under the old limits, reported at the switch');
  await push('d', 'e');
  assert.equal(take(), [line('d'), line('e')]);
  capture.close();
});

test('stderr-limits :: a run going on at the switch reports its repeats so far and keeps counting', async () => {
  const { clock, capture, take, push, set } = setup({});
  await push('x', 'x', 'x');
  set({ summaryIntervalSeconds: 1 });
  assert.equal(take(), [line('x'), repeated('x', 2)]);
  await push('x');
  clock.advance(1_000);
  assert.equal(take(), [repeated('x', 1)]);
  capture.close();
});

test('stderr-limits :: lines queued at the switch are kept and decided by the new quota', async () => {
  const clock = new FakeClock();
  const old = new FakeLimiter(clock, 0); // rejects everything
  let open!: () => void;
  old.gate = new Promise((resolve) => (open = resolve));
  const entries: StderrEntry[] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), now: clock.now, timers: clock, limiter: old });
  for (const text of ['a', 'b', 'c', 'd']) capture.push(text, false);
  const fresh = new FakeLimiter(clock, 3);
  capture.setLimits(limitsOf({ linesPerWindow: 3 }), fresh);
  old.gate = null;
  open();
  await capture.flush();
  assert.equal(entries, [line('a'), line('b'), line('c'), suppressed(1)], 'the line the old quota was deciding is asked again; none is lost');
  assert.is(old.calls, 1);
  assert.is(fresh.calls, 4);
  capture.close();
});

test('stderr-limits :: the ticker takes the new interval; there is still one', async () => {
  const { clock, capture, take, push, set } = setup({});
  await push('a', 'a');
  set({ summaryIntervalSeconds: 30 });
  take();
  assert.is(clock.activeIntervals, 1);
  await push('a');
  clock.advance(29_999);
  assert.equal(take(), []);
  clock.advance(1);
  assert.equal(take(), [repeated('a', 1)]);
  capture.close();
  assert.is(clock.activeIntervals, 0);
});

test('stderr-limits :: the new line cut reaches the attached stream', () => {
  const { capture, set, lineBytes } = setup({});
  set({ lineBytes: 1024 });
  set({ lineBytes: 65_536 });
  assert.equal(lineBytes, [1024, 65_536]);
  capture.close();
});

test('stderr-limits :: a high water lowered below the queue pauses at once; raised again, it resumes', async () => {
  const clock = new FakeClock();
  const limiter: StderrLimiter = { consume: () => new Promise(() => undefined) }; // never decides
  const flow: string[] = [];
  const capture = new StderrCapture({ emit: () => undefined, now: clock.now, timers: clock, limiter });
  capture.attach({ pause: () => flow.push('pause'), resume: () => flow.push('resume'), setLineBytes: () => undefined });
  for (let i = 0; i < 10; i++) capture.push(`${i}`.padEnd(1000, '.'), false);
  assert.equal(flow, []);
  capture.setLimits(limitsOf({ queueHighWaterBytes: 4096 }), limiter);
  assert.equal(flow, ['pause']);
  capture.setLimits(limitsOf({ queueHighWaterBytes: 8192 }), limiter);
  assert.equal(flow, ['pause'], 'still above half of the new high water');
  capture.setLimits(limitsOf({ queueHighWaterBytes: 64 * 1024 }), limiter);
  assert.equal(flow, ['pause', 'resume']);
  capture.close();
});

test('stderr-limits :: setLimits after close does nothing', () => {
  const { capture, set, lineBytes, take } = setup({});
  capture.close();
  set({ lineBytes: 1024 });
  assert.equal(lineBytes, []);
  assert.equal(take(), []);
  assert.equal(capture.limits, DEFAULT_STDERR_LIMITS);
});

test.run();
