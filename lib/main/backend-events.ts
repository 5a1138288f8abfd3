// What a backend worker's event means for that backend's state and for the rest of the service.
// Pure: reduceBackendEvent(state, event, context) → {patch, effects}; the handle applies the
// patch to the state table and carries the effects out (supervision, logs, notifications).
import type { BackendState } from '../shared/backend-state.ts';
import type { LogLevel } from '../shared/logger.ts';
import type { WorkerEvent } from '../shared/messages/state-events.ts';
import { redactCredentials, sanitize } from '../shared/sanitize.ts';
import { Code } from '../shared/errors.ts';
import { MAX_MISSED_PINGS, TIMEOUTS_CRITICAL } from '../shared/status.ts';

export type BackendEffect =
  /** The worker has loaded: start its child if a start is wanted. */
  | { type: 'workerReady' }
  /** The worker made a code cache of the backend bundle: keep it for the next workers (code-cache.ts). */
  | { type: 'codeCache'; data: SharedArrayBuffer }
  /** V8 refused the code cache this worker was given: drop it. */
  | { type: 'codeCacheRefused' }
  /** Tell the supervisor (supervised backends only). */
  | { type: 'supervise'; event: 'connected' | 'exited' }
  /** An unsupervised backend ended: its in-flight calls fail now. */
  | { type: 'failInflight' }
  /** Something clients can see changed (connection, inventory). */
  | { type: 'changed' }
  | { type: 'log'; level: LogLevel; msg: string; fields: Record<string, unknown> };

export type EventContext = {
  /** stop() was called: the backend's end is expected, not a failure. */
  stopping: boolean;
  supervised: boolean;
};

export type Reduction = { patch: Partial<BackendState>; effects: BackendEffect[] };

const none: Reduction = { patch: {}, effects: [] };

// The backend stopped working: a failed start, an exit, a broken transport, a dead worker.
function ended(
  state: Readonly<BackendState>,
  phase: 'failed' | 'exited' | 'awaiting_oauth',
  message: string,
  at: number,
  exited: boolean,
  ctx: EventContext,
): Reduction {
  if (ctx.stopping) return none;
  const lastError = redactCredentials(message);
  const patch: Partial<BackendState> = { phase, firstConnect: false, pid: null, lastError, lastErrorPublic: sanitize(message) };
  // A child's exit counts until a replacement stays connected; other failures count 60 s.
  if (exited) patch.exitCriticalAt = at;
  else if (phase !== 'awaiting_oauth') patch.lastCriticalAt = at;
  // HTTP 401 (awaiting_oauth, decisions §3): refused credentials or a backend that wants OAuth, which this version does not do.
  const msg =
    phase === 'awaiting_oauth'
      ? 'backend refused authentication (HTTP 401): the credentials given were refused, or it requires OAuth; status awaiting_oauth until a change to its entry'
      : 'backend failed';
  return {
    patch,
    effects: [
      { type: 'log', level: 'error', msg, fields: { backend: state.name, code: Code.backend_unavailable, error: lastError } },
      ctx.supervised ? { type: 'supervise', event: 'exited' } : { type: 'failInflight' },
      { type: 'changed' },
    ],
  };
}

export function reduceBackendEvent(state: Readonly<BackendState>, event: WorkerEvent, ctx: EventContext): Reduction {
  switch (event.type) {
    case 'ready': {
      const effects: BackendEffect[] = [{ type: 'workerReady' }];
      if (event.codeCache) effects.push({ type: 'log', level: 'debug', msg: 'backend worker loaded', fields: { backend: state.name, codeCache: event.codeCache } });
      if (event.codeCache === 'rejected') effects.push({ type: 'codeCacheRefused' });
      return { patch: {}, effects };
    }
    case 'codeCache':
      return { patch: {}, effects: [{ type: 'codeCache', data: event.data }] };
    case 'connecting':
      return { patch: { phase: 'connecting', pid: event.pid }, effects: [] };
    case 'connected':
      return {
        patch: {
          phase: 'connected',
          firstConnect: false,
          pid: event.pid,
          lastConnected: event.at,
          missedPings: 0,
          counts: event.counts,
          protocolVersion: event.protocolVersion,
        },
        effects: [
          { type: 'log', level: 'info', msg: 'backend connected', fields: { backend: state.name, pid: event.pid, protocolVersion: event.protocolVersion, tools: event.counts.tools } },
          ...(ctx.supervised ? [{ type: 'supervise', event: 'connected' } as const] : []),
          { type: 'changed' },
        ],
      };
    case 'inventory':
      return { patch: { counts: event.counts }, effects: [{ type: 'changed' }] };
    case 'ping': {
      if (event.ok) return { patch: { missedPings: 0 }, effects: [] };
      const missed = state.missedPings + 1;
      // The miss that makes the backend unhealthy is its last error: an unhealthy report says why.
      const why = missed >= MAX_MISSED_PINGS ? { lastError: `${missed} pings in a row were not answered`, lastErrorPublic: `${missed} pings in a row were not answered` } : {};
      return {
        patch: { missedPings: missed, ...why },
        effects: [{ type: 'log', level: 'warn', msg: 'backend did not answer ping', fields: { backend: state.name, code: Code.backend_timeout, missed, error: redactCredentials(event.error?.message) } }],
      };
    }
    case 'failed': {
      const reduction = ended(state, event.authRequired ? 'awaiting_oauth' : 'failed', event.error.message, event.at, event.exit !== null, ctx);
      if (event.exit && !ctx.stopping) reduction.patch.lastExit = event.exit;
      return reduction;
    }
    case 'exited': {
      const reduction = ended(state, 'exited', event.error?.message ?? 'backend process exited', event.at, true, ctx);
      if (!ctx.stopping) reduction.patch.lastExit = event.exit;
      return reduction;
    }
    case 'stopped':
      return { patch: { phase: 'stopped', pid: null }, effects: [{ type: 'changed' }] };
    case 'callHealth': {
      const patch: Partial<BackendState> = { consecutiveTimeouts: event.consecutiveTimeouts, ...(event.consecutiveTimeouts > 0 ? { lastTimeoutAt: event.at } : {}) };
      // The streak that makes the backend unhealthy is its last error: an unhealthy report says why.
      if (event.consecutiveTimeouts >= TIMEOUTS_CRITICAL) patch.lastError = patch.lastErrorPublic = `${event.consecutiveTimeouts} consecutive requests timed out (requestTimeout)`;
      return { patch, effects: [] };
    }
    case 'log':
      return { patch: {}, effects: [{ type: 'log', level: event.level, msg: event.msg, fields: { backend: state.name, ...event.fields } }] };
    default: {
      const unknown: never = event;
      return { patch: {}, effects: [{ type: 'log', level: 'error', msg: 'protocol error: unknown message from a backend worker', fields: { backend: state.name, code: Code.protocol_error, event: unknown } }] };
    }
  }
}

/** What an operator restart clears: it is a fresh start (decisions §3). */
export const FRESH_START: Partial<BackendState> = { lastCriticalAt: null, exitCriticalAt: null, consecutiveTimeouts: 0, lastTimeoutAt: null };
