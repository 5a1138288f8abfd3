import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Clock, Supervisor } from '../../../lib/main/supervision/driver.ts';

// A fake clock whose timers can fire early, like real ones against Date.now().
function fakeClock() {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (id) => void (timers = timers.filter((t) => t.id !== id)),
  };
  return {
    clock,
    /** Fires due timers; `early` fires the first batch that many ms before its time. */
    async advance(ms: number, early = 0) {
      now += ms;
      for (let round = 0; ; round++) {
        const slack = round === 0 ? early : 0;
        const due = timers.filter((t) => t.at - slack <= now);
        if (!due.length) break;
        timers = timers.filter((t) => !due.includes(t));
        for (const t of due) t.fn();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

function harness() {
  const time = fakeClock();
  const effects: string[] = [];
  const supervisor = new Supervisor(
    { restartDelay: 100, maxRestarts: 3 },
    {
      spawn: () => void effects.push('spawn'),
      kill: async () => void effects.push('kill'),
      failInflight: (reason) => void effects.push(`fail:${reason}`),
      publish: (state) => void effects.push(`state:${state.phase}`),
    },
    time.clock,
  );
  return { time, effects, supervisor };
}

test('supervision driver :: an exit leads to a spawn after the delay', async () => {
  const { time, effects, supervisor } = harness();
  await supervisor.send({ type: 'connected' });
  await supervisor.send({ type: 'exited' });
  assert.equal(effects, ['state:connected', 'state:restarting', 'fail:restarting']);
  await time.advance(99);
  assert.not.ok(effects.includes('spawn'));
  await time.advance(1);
  assert.ok(effects.includes('spawn'));
});

test('supervision driver :: a timer that fires early still leads to the spawn', async () => {
  const { time, effects, supervisor } = harness();
  await supervisor.send({ type: 'exited' });
  await time.advance(99, 1); // fires at 99 for a retry due at 100
  assert.not.ok(effects.includes('spawn'), 'not before its time');
  await time.advance(1);
  assert.ok(effects.includes('spawn'), 'but not lost either');
});

test('supervision driver :: operator restart kills before it spawns, and cancels a pending retry', async () => {
  const { time, effects, supervisor } = harness();
  await supervisor.send({ type: 'exited' });
  effects.length = 0;
  await supervisor.send({ type: 'operatorRestart' });
  assert.equal(effects, ['state:restarting', 'fail:restarting', 'kill', 'spawn']);
  await time.advance(10_000);
  assert.equal(effects.filter((e) => e === 'spawn').length, 1, 'the cancelled retry never fires');
});

test.run();
