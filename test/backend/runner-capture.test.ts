import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StderrCapture } from '../../lib/backend/stderr-capture.ts';
import { DEFAULT_STDERR_LIMITS } from '../../lib/shared/stderr-limits.ts';
import { backendFixture, harness, STDIO_SERVER, stdioSpec } from './helpers/runner-harness.ts';

// Counts the captures closed while a test runs (the capture's ticker is internal to it).
function closedCaptures(): { count: () => number; restore: () => void } {
  const close = StderrCapture.prototype.close;
  let count = 0;
  StderrCapture.prototype.close = function (this: StderrCapture) {
    count++;
    close.call(this);
  };
  return { count: () => count, restore: () => (StderrCapture.prototype.close = close) };
}

test('runner capture :: stop() emits the pending stderr summaries and closes the capture', async () => {
  const closed = closedCaptures();
  const h = harness(stdioSpec('chatty', [backendFixture('writes-stderr-at-start.mjs'), '0', '5']));
  try {
    await h.runner.start();
    await h.next('connected');
    for (let i = 0; i < 300 && !h.logs.some((l) => l.msg === 'fixture repeated line'); i++) await new Promise((r) => setTimeout(r, 10));
    await h.runner.stop(500);
    assert.is(closed.count(), 1);
    const stderr = h.logs.filter((l) => l.stream === 'stderr').map((l) => l.msg);
    assert.equal(stderr, ['fixture repeated line', 'repeated 4 times: fixture repeated line'], 'summarized at the stop, not at a later tick');
  } finally {
    closed.restore();
    await h.close();
  }
});

test('runner capture :: the quota holds across a stop and a new start', async () => {
  const h = harness(stdioSpec('chatty', [backendFixture('writes-stderr-at-start.mjs'), '15']));
  const lines = () => h.logs.filter((l) => l.stream === 'stderr' && /^fixture stderr line/.test(l.msg)).length;
  try {
    await h.runner.start();
    await h.next('connected');
    for (let i = 0; i < 300 && lines() < 15; i++) await new Promise((r) => setTimeout(r, 10));
    await h.runner.stop(500);
    await h.runner.start();
    await h.next('connected', () => true, h.events.length - 1);
    await h.runner.stop(500);
    assert.is(lines(), 20, '20 lines per window for the backend, not per child');
    assert.ok(h.logs.some((l) => l.msg === 'suppressed 10 lines'), JSON.stringify(h.logs.map((l) => l.msg)));
  } finally {
    await h.close();
  }
});

test('runner capture :: the runner starts with its stderr limits and switches the running capture without a restart', async () => {
  const h = harness(stdioSpec('steady', backendFixture('writes-distinct-stderr-steadily.mjs'), { env: { PATH: process.env.PATH!, STEADY_INTERVAL_MS: '5' } }), {
    stderrLimits: { ...DEFAULT_STDERR_LIMITS, linesPerWindow: 1000 },
  });
  const steady = (from = 0) => h.logs.slice(from).filter((l) => l.stream === 'stderr' && /^steady stderr line/.test(l.msg)).length;
  try {
    await h.runner.start();
    await h.next('connected');
    for (let i = 0; i < 300 && steady() < 40; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(steady() >= 40, 'more than the default 20 lines: the runner took its limits');
    h.runner.setStderrLimits({ ...DEFAULT_STDERR_LIMITS, linesPerWindow: 2, windowSeconds: 60, summaryIntervalSeconds: 1 });
    const changed = h.logs.findIndex((l) => l.msg.startsWith('stderr limits changed'));
    assert.is(h.logs[changed]?.msg, 'stderr limits changed: the new quota applies now, without a restart');
    assert.equal(h.logs[changed]!.stderrLimits, { ...DEFAULT_STDERR_LIMITS, linesPerWindow: 2, windowSeconds: 60, summaryIntervalSeconds: 1 });
    for (let i = 0; i < 300 && !h.logs.slice(changed).some((l) => l.suppressed !== undefined); i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    assert.is(steady(changed), 2, 'two lines in the new window, then only summaries');
    assert.ok(h.logs.slice(changed).some((l) => /^suppressed \d+ lines$/.test(l.msg)));
    assert.is(h.events.filter((e) => e.type === 'connecting').length, 1, 'the child was not restarted');
  } finally {
    await h.close();
  }
});

test("runner capture :: new stderr limits for a server whose stderr is not captured say they are not used", async () => {
  const h = harness(stdioSpec('quiet', STDIO_SERVER, { stderr: 'ignore' }));
  try {
    h.runner.setStderrLimits({ ...DEFAULT_STDERR_LIMITS, linesPerWindow: 2 });
    assert.ok(h.logs.some((l) => l.msg === 'stderr limits changed: not used, this server\'s stderr is not captured (its "stderr" is neither "pipe" nor "overlapped")' && l.stderr === 'ignore'), JSON.stringify(h.logs));
  } finally {
    await h.close();
  }
});

test.run();
