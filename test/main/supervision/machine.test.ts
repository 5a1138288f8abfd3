import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, initialSupervisorState, STABLE_RESET_MS, type SupervisorCommand, type SupervisorEvent, type SupervisorState } from '../../../lib/main/supervision/machine.ts';

// A fake clock and a tiny driver: events in, the last decision's state and commands out.
function machine(policy = { restartDelay: 1000, maxRestarts: 5 }) {
  let state: SupervisorState = initialSupervisorState(policy);
  let now = 0;
  let commands: SupervisorCommand[] = [];
  return {
    send(event: SupervisorEvent['type']) {
      ({ state, commands } = decide(state, { type: event } as SupervisorEvent, now));
      return commands.map((c) => c.type);
    },
    advance(ms: number) {
      now += ms;
    },
    get state() {
      return state;
    },
    get commands() {
      return commands;
    },
    get now() {
      return now;
    },
  };
}

// Crash, wait for the retry, crash again...: the delays a supervised backend waits.
function crashDelays(m: ReturnType<typeof machine>, crashes: number): number[] {
  const delays: number[] = [];
  for (let i = 0; i < crashes; i++) {
    m.send('exited');
    if (m.state.phase !== 'restarting') break;
    const wait = m.state.nextRetryAt! - m.now;
    delays.push(wait);
    m.advance(wait);
    assert.equal(m.send('retryDue'), ['spawn']);
  }
  return delays;
}

test('supervision :: first connect publishes without a stable timer', () => {
  const m = machine();
  assert.equal(m.send('connected'), []);
  assert.is(m.state.phase, 'connected');
  assert.is(m.state.attempt, 0);
});

test('supervision :: backoff is 1x, 2x, 4x, 8x, then 16x restartDelay (unlimited)', () => {
  const m = machine({ restartDelay: 1000, maxRestarts: 0 });
  m.send('connected');
  assert.equal(crashDelays(m, 8), [1000, 2000, 4000, 8000, 16000, 16000, 16000, 16000]);
  assert.is(m.state.phase, 'restarting');
  assert.is(m.state.attempt, 8);
});

test('supervision :: an exit while connected withdraws, fails in-flight requests and schedules the retry', () => {
  const m = machine();
  m.send('connected');
  m.advance(50);
  assert.equal(m.send('exited'), ['cancelTimers', 'failInflight', 'scheduleRetry']);
  assert.equal(m.commands[1], { type: 'failInflight', reason: 'restarting' });
  assert.equal(m.commands[2], { type: 'scheduleRetry', at: 1050 });
  assert.equal({ phase: m.state.phase, attempt: m.state.attempt, nextRetryAt: m.state.nextRetryAt }, { phase: 'restarting', attempt: 1, nextRetryAt: 1050 });
});

test('supervision :: crash loop at the default limit of 5', () => {
  const m = machine();
  m.send('connected');
  assert.equal(crashDelays(m, 6), [1000, 2000, 4000, 8000, 16000]);
  assert.is(m.state.phase, 'crashLoop');
  assert.is(m.state.attempt, 5);
  assert.is(m.state.nextRetryAt, null);
  assert.equal(m.commands, [{ type: 'cancelTimers' }, { type: 'failInflight', reason: 'crashLoop' }]);
});

test('supervision :: crash loop at a custom limit, and it stays there', () => {
  const m = machine({ restartDelay: 100, maxRestarts: 2 });
  assert.equal(crashDelays(m, 3), [100, 200]);
  assert.is(m.state.phase, 'crashLoop');
  assert.equal(m.send('exited'), []);
  assert.equal(m.send('retryDue'), []);
  assert.is(m.state.phase, 'crashLoop');
});

test('supervision :: a failed first start is handled like an exit', () => {
  const m = machine();
  assert.equal(m.send('exited'), ['cancelTimers', 'failInflight', 'scheduleRetry']);
  assert.is(m.state.phase, 'restarting');
});

test('supervision :: a replacement that connects publishes and starts the 5-minute stable timer', () => {
  const m = machine();
  m.send('connected');
  crashDelays(m, 2);
  m.advance(30);
  assert.equal(m.send('connected'), ['scheduleStable']);
  assert.equal(m.commands[0], { type: 'scheduleStable', at: m.now + STABLE_RESET_MS });
  assert.is(m.state.phase, 'connected');
  assert.is(m.state.attempt, 2, 'not reset yet');
});

test('supervision :: five stable minutes reset the counter and the backoff', () => {
  const m = machine();
  m.send('connected');
  crashDelays(m, 3);
  m.send('connected');
  m.advance(STABLE_RESET_MS - 1);
  m.send('stableDue');
  assert.is(m.state.attempt, 3, 'one millisecond early changes nothing');
  m.advance(1);
  m.send('stableDue');
  assert.is(m.state.attempt, 0);
  assert.equal(crashDelays(m, 1), [1000]);
});

test('supervision :: a crash before five stable minutes keeps counting', () => {
  const m = machine();
  m.send('connected');
  crashDelays(m, 2);
  m.send('connected');
  m.advance(STABLE_RESET_MS - 10);
  assert.equal(crashDelays(m, 1), [4000]);
  assert.is(m.state.attempt, 3);
  m.advance(20);
  m.send('stableDue'); // the stale timer of the earlier replacement
  assert.is(m.state.attempt, 3);
});

test('supervision :: operator restart from crash loop resets the counter and restarts at once', () => {
  const m = machine({ restartDelay: 100, maxRestarts: 1 });
  crashDelays(m, 2);
  assert.is(m.state.phase, 'crashLoop');
  assert.equal(m.send('operatorRestart'), ['cancelTimers', 'failInflight', 'kill', 'spawn']);
  assert.equal({ phase: m.state.phase, attempt: m.state.attempt, nextRetryAt: m.state.nextRetryAt }, { phase: 'restarting', attempt: 0, nextRetryAt: null });
  m.send('connected');
  assert.is(m.state.phase, 'connected');
});

test('supervision :: operator restart while a restart is pending cancels the wait', () => {
  const m = machine();
  m.send('connected');
  m.send('exited');
  m.advance(10);
  assert.equal(m.send('operatorRestart'), ['cancelTimers', 'failInflight', 'kill', 'spawn']);
  assert.is(m.state.nextRetryAt, null);
  m.advance(5000);
  assert.equal(m.send('retryDue'), [], 'the cancelled retry does nothing');
});

test('supervision :: a late retry timer does nothing', () => {
  const m = machine();
  m.send('exited');
  m.advance(999);
  assert.equal(m.send('retryDue'), []);
  m.advance(1);
  assert.equal(m.send('retryDue'), ['spawn']);
});

test('supervision :: stop during a pending restart cancels it and ignores everything after', () => {
  const m = machine();
  m.send('connected');
  m.send('exited');
  assert.equal(m.send('stop'), ['cancelTimers', 'failInflight', 'kill']);
  assert.is(m.state.phase, 'stopped');
  m.advance(10_000);
  for (const event of ['retryDue', 'connected', 'exited', 'operatorRestart', 'stableDue'] as const) assert.equal(m.send(event), [], event);
  assert.is(m.state.phase, 'stopped');
});

test('supervision :: a reload replacement leaves crash loop (the old machine stops, a new one starts)', () => {
  const old = machine({ restartDelay: 100, maxRestarts: 1 });
  crashDelays(old, 2);
  assert.is(old.state.phase, 'crashLoop');
  old.send('stop');
  assert.is(old.state.phase, 'stopped');
  const replacement = machine({ restartDelay: 100, maxRestarts: 1 });
  assert.is(replacement.state.phase, 'starting');
  assert.is(replacement.state.attempt, 0);
});

test.run();
