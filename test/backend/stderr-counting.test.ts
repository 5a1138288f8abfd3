// The splitter and the capture wired as lib/backend/stdio-connection.ts wires them: counting a
// read's lines while the capture drops everything must log exactly what decoding every line logs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineSplitter } from '../../lib/backend/line-splitter.ts';
import { StderrCapture, type StderrEntry } from '../../lib/backend/stderr-capture.ts';
import { DEFAULT_STDERR_LIMITS } from '../../lib/shared/stderr-limits.ts';
import { FakeClock, FakeLimiter } from './helpers/stderr-fakes.ts';


/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A stream of repeats, distinct lines, empty lines, lone `\r`, lines starting with `\r`, CRLF and lines over the cut. */
function stream(next: () => number, lines: number, lineBytes: number): string {
  const texts = ['alpha', 'beta', 'gamma'];
  let out = '';
  let previous = 'alpha';
  for (let i = 0; i < lines; i++) {
    const r = next();
    const text =
      r < 0.3
        ? previous
        : r < 0.5
          ? texts[Math.floor(next() * texts.length)]!
          : r < 0.7
            ? `line ${i}`
            : r < 0.75
              ? `\r${i}`
              : r < 0.85
                ? ''
                : r < 0.9
                  ? '\r'
                  : r < 0.95
                    ? 'x'.repeat(lineBytes + Math.floor(next() * 10))
                    : 'é😀'.repeat(lineBytes + Math.floor(next() * 4)); // a cut through multi-byte characters
    // Copies come in runs, long ones now and then (a backend repeating one error).
    const copies = r < 0.3 && next() < 0.3 ? 1 + Math.floor(next() * 40) : 1;
    for (let c = 0; c < copies; c++) out += text + (next() < 0.2 ? '\r\n' : '\n');
    previous = text;
  }
  return out;
}

type Step = { chunk: Buffer; advanceMs: number };

async function replay(steps: Step[], counting: boolean, lineBytes: number): Promise<{ entries: StderrEntry[]; lastLines: (string | null)[]; limiterCalls: number }> {
  const clock = new FakeClock();
  const limiter = new FakeLimiter(clock, 5);
  const entries: StderrEntry[] = [];
  const limits = { ...DEFAULT_STDERR_LIMITS, lineBytes, linesPerWindow: 5 };
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), now: clock.now, timers: clock, limiter, limits });
  let lastLine: string | null = null;
  const counter = counting ? { countsOnly: () => capture.dropsEverything(), count: (n: number) => capture.countDropped(n), repeat: (n: number) => capture.countRepeats(n) } : null;
  const splitter = new LineSplitter(
    (line, truncated) => {
      if (!line) return;
      lastLine = line;
      capture.push(line, truncated);
    },
    lineBytes,
    counter,
  );
  const lastLines: (string | null)[] = []; // the backend's last stderr line after each read
  for (const step of steps) {
    splitter.push(step.chunk);
    lastLines.push(lastLine);
    await capture.idle(); // between two reads the event loop runs the capture's decisions
    clock.advance(step.advanceMs);
  }
  splitter.flush();
  await capture.flush();
  capture.close();
  return { entries, lastLines: [...lastLines, lastLine], limiterCalls: limiter.calls };
}

// lineBytes 1 cuts a line starting with `\r` down to an empty one.
for (const [seed, lineBytes] of [[1, 16], [2, 16], [3, 16], [4, 16], [5, 16], [6, 16], [7, 1], [8, 1], [9, 2]] as const) {
  test(`stderr counting :: seed ${seed}, lineBytes ${lineBytes}: the same log, last line and limiter calls as decoding every line`, async () => {
    const next = random(seed);
    const bytes = Buffer.from(stream(next, 3_000, lineBytes));
    const steps: Step[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(next() * 400);
      // Mostly back to back; now and then long enough for a summary or a new quota window.
      const advanceMs = next() < 0.9 ? Math.floor(next() * 50) : Math.floor(next() * 12_000);
      steps.push({ chunk: bytes.subarray(at, at + size), advanceMs });
      at += size;
    }
    const decoded = await replay(steps, false, lineBytes);
    const counted = await replay(steps, true, lineBytes);
    assert.ok(decoded.entries.some((e) => e.kind === 'suppressed'), 'the stream goes over quota');
    assert.ok(decoded.entries.some((e) => e.kind === 'repeated'), 'the stream has logged repeats');
    assert.equal(counted, decoded);
  });
}

// The outside tester's flood: 30 distinct lines, then one repeated line as fast as the pipe
// takes it for 25 s (millions of lines). Its first copy came over quota; every copy after was
// counted as suppressed, in every window, and the line never reached the log.
test('stderr counting :: a repeated flood that starts over quota is logged once in the next window, then folded, still undecoded', async () => {
  const clock = new FakeClock();
  const limiter = new FakeLimiter(clock, 20);
  const entries: [number, StderrEntry][] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push([clock.time, entry]), now: clock.now, timers: clock, limiter });
  let pushed = 0; // lines the splitter decoded and passed on
  const splitter = new LineSplitter(
    (line, truncated) => {
      pushed++;
      if (line) capture.push(line, truncated);
    },
    DEFAULT_STDERR_LIMITS.lineBytes,
    { countsOnly: () => capture.dropsEverything(), count: (n) => capture.countDropped(n), repeat: (n) => capture.countRepeats(n) },
  );
  const error = 'ERROR: cannot connect to database db:5432 (retrying)';
  splitter.push(Buffer.from(Array.from({ length: 30 }, (_, i) => `starting ${i + 1}\n`).join('')));
  await capture.idle();
  const read = Buffer.from(`${error}\n`.repeat(Math.floor((64 * 1024) / (error.length + 1))));
  const perRead = read.length / (error.length + 1);
  let reads = 0;
  for (; clock.time < 25_000; reads++) {
    clock.advance(10); // 64 KiB per 10 ms: about 6.5 MB/s, 120,000 lines a second
    splitter.push(read);
    await capture.idle();
  }
  splitter.flush();
  await capture.flush();
  const texts = entries.filter(([, e]) => e.kind === 'line').map(([, e]) => (e as { text: string }).text);
  assert.equal(texts, [...Array.from({ length: 20 }, (_, i) => `starting ${i + 1}`), error], 'the quota, then the repeated line once');
  const logged = entries.find(([, e]) => e.kind === 'line' && e.text === error)!;
  assert.is(logged[0], 10_000, 'at the first read of the new window');
  const after = entries.filter(([t]) => t > 10_000).map(([, e]) => e);
  assert.ok(after.length >= 3 && after.every((e) => e.kind === 'repeated' && e.text === error), 'then repeated summaries only');
  const total = 30 + reads * perRead;
  const sum = (kind: 'repeated' | 'suppressed') => entries.reduce((n, [, e]) => n + (e.kind === kind ? e.count : 0), 0);
  assert.is(texts.length + sum('repeated') + sum('suppressed'), total, 'every line accounted for');
  assert.is(sum('suppressed'), 10 + 999 * perRead, 'suppressed: 10 start-up lines and the copies of the first 10 s');
  assert.ok(pushed < 30 + 1_000 + 5, `the flood was counted, not decoded (${pushed} lines decoded of ${total})`);
  assert.is(limiter.calls, 22, '20 lines, the rejection, the line in the new window');
  capture.close();
});

test('stderr counting :: the capture drops everything only over quota, with nothing queued and no logged run', async () => {
  const clock = new FakeClock();
  const entries: StderrEntry[] = [];
  const capture = new StderrCapture({ emit: (entry) => entries.push(entry), now: clock.now, timers: clock, limiter: new FakeLimiter(clock, 1) });
  assert.not.ok(capture.dropsEverything(), 'under quota');
  capture.push('first', false);
  await capture.idle();
  capture.push('first', false);
  assert.not.ok(capture.dropsEverything(), 'a repeat of the logged line counts for its summary, not as suppressed');
  capture.push('second', false);
  assert.not.ok(capture.dropsEverything(), 'a line waits for the limiter');
  await capture.idle();
  assert.ok(capture.dropsEverything(), 'over quota, nothing queued, the logged run ended');
  capture.push('third', false);
  capture.countDropped(40);
  clock.advance(DEFAULT_STDERR_LIMITS.summaryIntervalSeconds * 1000);
  assert.equal(entries, [
    { kind: 'line', text: 'first', truncated: false },
    { kind: 'repeated', text: 'first', count: 1 },
    { kind: 'suppressed', count: 42 },
  ]);
  clock.advance(10_000);
  assert.not.ok(capture.dropsEverything(), 'a new quota window');
  capture.close();
  assert.not.ok(capture.dropsEverything(), 'closed');
});

test.run();
