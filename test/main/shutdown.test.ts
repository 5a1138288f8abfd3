import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runShutdown, type ShutdownTimers } from '../../lib/main/shutdown.ts';

// A clock the test advances by hand: the deadline fires only when the test says so.
function manualTimers() {
  const pending = new Set<{ fn: () => void; ms: number }>();
  const timers: ShutdownTimers = {
    setTimeout: (fn, ms) => {
      const t = { fn, ms };
      pending.add(t);
      return t;
    },
    clearTimeout: (t) => void pending.delete(t as { fn: () => void; ms: number }),
  };
  return { timers, fire: () => [...pending].forEach((t) => (pending.delete(t), t.fn())), count: () => pending.size };
}

function logger() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (a: unknown, b?: unknown) => void lines.push({ level, msg: typeof a === 'string' ? a : String(b) });
  return { log: { error: at('error'), info: at('info') } as never, lines };
}

test('shutdown :: clean steps in order exit 0 and kill nothing', async () => {
  const order: string[] = [];
  const { log, lines } = logger();
  let kills = 0;
  const { timers, count } = manualTimers();
  const code = await runShutdown(
    [
      { name: 'a', run: () => void order.push('a') },
      { name: 'b', run: async () => void order.push('b') },
    ],
    { deadlineMs: 10_000, log, killAll: () => kills++, timers },
  );
  assert.is(code, 0);
  assert.equal(order, ['a', 'b']);
  assert.is(kills, 0);
  assert.equal(lines, []);
  assert.is(count(), 0, 'the deadline timer is cleared');
});

test('shutdown :: a failing step is logged, later steps still run, every group is killed, exit 1', async () => {
  const order: string[] = [];
  const { log, lines } = logger();
  let kills = 0;
  const code = await runShutdown(
    [
      { name: 'close sessions', run: () => Promise.reject(new Error('boom token=abc')) },
      { name: 'stop backends', run: () => void order.push('stop backends') },
    ],
    { deadlineMs: 10_000, log, killAll: () => kills++, timers: manualTimers().timers },
  );
  assert.is(code, 1);
  assert.equal(order, ['stop backends']);
  assert.is(kills, 1);
  assert.equal(lines.map((l) => l.msg), ['shutdown step failed: close sessions', 'shutdown had errors: killing every backend process group']);
});

test('shutdown :: a step that never ends meets the deadline: groups killed, reason logged, exit 1', async () => {
  const { log, lines } = logger();
  let kills = 0;
  const manual = manualTimers();
  const done = runShutdown([{ name: 'stop backends', run: () => new Promise(() => undefined) }], { deadlineMs: 10_000, log, killAll: () => kills++, timers: manual.timers });
  await new Promise((r) => setImmediate(r));
  manual.fire();
  assert.is(await done, 1);
  assert.is(kills, 1);
  assert.equal(lines.map((l) => l.msg), ['shutdown did not finish within 10000 ms (stuck at: stop backends): killing every backend process group']);
});

test.run();
