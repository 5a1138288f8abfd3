// What the state table and the log say about a supervisor's state. Pure: the handle applies it.
import { Code } from '../../shared/errors.ts';
import type { BackendState } from '../../shared/backend-state.ts';
import type { LogLevel } from '../../shared/logger.ts';
import type { SupervisorState } from './machine.ts';

/** What the crash-loop line tells the operator to do, where the control bus runs. */
export const CRASH_LOOP_ADVICE = 'restart it with `agent mcp restart` or fix its configuration';

export type SupervisionLine = { level: Extract<LogLevel, 'warn' | 'error'>; fields: Record<string, unknown>; msg: string };

/** The state table's view of the supervisor. */
export function supervisionView(state: SupervisorState, limit: number | null): NonNullable<BackendState['supervision']> {
  return { state: state.phase, attempt: state.attempt, limit, nextRetryAt: state.nextRetryAt };
}

/** The log line a supervisor's new state calls for: a restart scheduled, or a crash loop; null for the others. */
export function supervisionLine(backend: string, state: SupervisorState, limit: number | null, advice: string = CRASH_LOOP_ADVICE): SupervisionLine | null {
  if (state.phase === 'restarting' && state.nextRetryAt !== null) {
    return { level: 'warn', fields: { backend, code: Code.backend_unavailable, attempt: state.attempt, limit, nextRetryAt: new Date(state.nextRetryAt).toISOString() }, msg: 'backend will restart' };
  }
  if (state.phase === 'crashLoop') {
    return { level: 'error', fields: { backend, code: Code.backend_unavailable, attempts: state.attempt }, msg: `backend is in crash loop: ${advice}` };
  }
  return null;
}
