// The log line of a routed call that failed on the service's side: a timeout, a connection that
// ended under it, a failure of ours. A backend's own MCP error and a client's cancellation are the
// caller's business (debug). Pure: the runner writes what it returns.
import { type BackendCall, CALL_FAILURE, type CallError } from '../shared/messages/calls.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import type { ErrorCode } from '../shared/errors.ts';

export type CallFailureLine = { level: 'debug' | 'warn' | 'error'; fields: { code: ErrorCode; method: string; target?: string }; message: string };

const LEVEL: Record<CallError['kind'], CallFailureLine['level']> = { timeout: 'warn', disconnected: 'warn', internal: 'error', mcp: 'debug', cancelled: 'debug' };

/** What names the call's target: a tool's or prompt's name, a resource's URI (credentials redacted). */
function targetOf(call: Pick<BackendCall, 'params'>): string | undefined {
  const { name, uri } = call.params;
  if (typeof name === 'string') return redactCredentials(name, 200);
  if (typeof uri === 'string') return redactCredentials(uri, 200);
  return undefined;
}

export function callFailureLine(call: Pick<BackendCall, 'method' | 'params'>, error: CallError): CallFailureLine {
  const target = targetOf(call);
  return {
    level: LEVEL[error.kind],
    fields: { code: CALL_FAILURE[error.kind], method: call.method, ...(target === undefined ? {} : { target }) },
    message: redactCredentials(error.message),
  };
}
