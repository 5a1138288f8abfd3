// The supervision state machine of a stdio backend with restartOnExit (service.md "Backend
// supervision states", decisions §6). Pure: decide(state, event, now) → {state, commands}; the
// driver owns timers and the worker and carries the commands out.
import { restartDelay } from '../../shared/backoff.ts';

export const STABLE_RESET_MS = 5 * 60_000;

export type SupervisionPhase = 'starting' | 'connected' | 'restarting' | 'crashLoop' | 'stopped';

export type SupervisionPolicy = { restartDelay: number; /** 0 = unlimited */ maxRestarts: number };

export type SupervisorState = {
  phase: SupervisionPhase;
  /** Consecutive automatic restart attempts so far. */
  attempt: number;
  /** When the pending restart fires; null when none is pending. */
  nextRetryAt: number | null;
  /** When the current replacement connected; the 5-minute stable timer runs from here. */
  connectedAt: number | null;
  policy: SupervisionPolicy;
};

export type SupervisorEvent =
  /** MCP initialize completed. */
  | { type: 'connected' }
  /** The child exited, failed to start or initialize, or its worker thread died. */
  | { type: 'exited' }
  /** The restart delay elapsed. */
  | { type: 'retryDue' }
  /** The stable timer elapsed. */
  | { type: 'stableDue' }
  /** `agent mcp restart <server>`. */
  | { type: 'operatorRestart' }
  /** Shutdown, removal, or replacement by a configuration reload. */
  | { type: 'stop' };

export type SupervisorCommand =
  | { type: 'spawn' } // a fresh process, transport and MCP client
  | { type: 'kill' } // end the running child (operator restart, stop)
  | { type: 'failInflight'; reason: 'restarting' | 'crashLoop' | 'stopped' } // in-flight requests fail at once, never replayed
  | { type: 'scheduleRetry'; at: number }
  | { type: 'scheduleStable'; at: number }
  | { type: 'cancelTimers' };

export type Decision = { state: SupervisorState; commands: SupervisorCommand[] };

export function initialSupervisorState(policy: SupervisionPolicy): SupervisorState {
  return { phase: 'starting', attempt: 0, nextRetryAt: null, connectedAt: null, policy };
}

/** The attempt limit of the policy, null when unlimited. */
export function attemptLimit(policy: SupervisionPolicy): number | null {
  return policy.maxRestarts === 0 ? null : policy.maxRestarts;
}

// A running or starting backend ended: restart after the backoff delay, or enter crash loop.
function afterExit(state: SupervisorState, now: number): Decision {
  const attempt = state.attempt + 1;
  const limit = attemptLimit(state.policy);
  if (limit !== null && attempt > limit) {
    return {
      state: { ...state, phase: 'crashLoop', nextRetryAt: null, connectedAt: null },
      commands: [{ type: 'cancelTimers' }, { type: 'failInflight', reason: 'crashLoop' }],
    };
  }
  const at = now + restartDelay(attempt, state.policy.restartDelay);
  return {
    state: { ...state, phase: 'restarting', attempt, nextRetryAt: at, connectedAt: null },
    commands: [{ type: 'cancelTimers' }, { type: 'failInflight', reason: 'restarting' }, { type: 'scheduleRetry', at }],
  };
}

const unchanged = (state: SupervisorState): Decision => ({ state, commands: [] });

export function decide(state: SupervisorState, event: SupervisorEvent, now: number): Decision {
  if (state.phase === 'stopped') return unchanged(state);
  switch (event.type) {
    case 'connected':
      if (state.phase !== 'starting' && state.phase !== 'restarting') return unchanged(state);
      // The counter resets only after a replacement has stayed up for five minutes.
      return {
        state: { ...state, phase: 'connected', nextRetryAt: null, connectedAt: now },
        commands: state.attempt > 0 ? [{ type: 'scheduleStable', at: now + STABLE_RESET_MS }] : [],
      };
    case 'exited':
      if (state.phase === 'crashLoop') return unchanged(state);
      // An exit while a restart is already pending (a late event) changes nothing.
      if (state.phase === 'restarting' && state.nextRetryAt !== null) return unchanged(state);
      return afterExit(state, now);
    case 'retryDue':
      if (state.phase !== 'restarting' || state.nextRetryAt === null || now < state.nextRetryAt) return unchanged(state);
      return { state: { ...state, nextRetryAt: null }, commands: [{ type: 'spawn' }] };
    case 'stableDue':
      if (state.phase !== 'connected' || state.connectedAt === null || now - state.connectedAt < STABLE_RESET_MS) return unchanged(state);
      return { state: { ...state, attempt: 0 }, commands: [] };
    case 'operatorRestart':
      return {
        state: { ...state, phase: 'restarting', attempt: 0, nextRetryAt: null, connectedAt: null },
        commands: [{ type: 'cancelTimers' }, { type: 'failInflight', reason: 'restarting' }, { type: 'kill' }, { type: 'spawn' }],
      };
    case 'stop':
      return {
        state: { ...state, phase: 'stopped', nextRetryAt: null, connectedAt: null },
        commands: [{ type: 'cancelTimers' }, { type: 'failInflight', reason: 'stopped' }, { type: 'kill' }],
      };
  }
}
