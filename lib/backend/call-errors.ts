// What a failed call to a backend is called when it crosses to the hub: the kind (which the
// catalogue turns into a code, lib/shared/messages/calls.ts) and words naming the backend. A
// backend's own MCP error passes as it came, its code and data kept.
import { ProtocolError, ProtocolErrorCode, SdkErrorCode } from '@modelcontextprotocol/client';
import { CALL_FAILURE, type CallError } from '../shared/messages/calls.ts';
import { toWireError } from '../shared/messages/state-events.ts';
import { isUnreachable } from './unreachable.ts';

export function callTimedOut(backend: string, requestTimeoutMs: number): CallError {
  return { kind: 'timeout', code: ProtocolErrorCode.InternalError, message: `request to backend '${backend}' timed out after ${requestTimeoutMs} ms (requestTimeout)` };
}

export function notConnected(backend: string): CallError {
  return { kind: 'disconnected', code: ProtocolErrorCode.InternalError, message: `Backend '${backend}' is not connected` };
}

/** The error of a call that threw; `cancelled`: its signal was aborted by the client's cancellation. */
export function callErrorOf(backend: string, requestTimeoutMs: number, error: unknown, cancelled: boolean): CallError {
  if (cancelled) return { kind: 'cancelled', code: ProtocolErrorCode.InternalError, message: `request to backend '${backend}' was cancelled` };
  if (error instanceof ProtocolError) return { kind: 'mcp', code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === SdkErrorCode.RequestTimeout) return callTimedOut(backend, requestTimeoutMs);
  if (code === SdkErrorCode.ConnectionClosed) {
    return { kind: 'disconnected', code: ProtocolErrorCode.InternalError, message: `backend '${backend}' disconnected during the request` };
  }
  // The request could not be sent: the pipe broke, or the client had already lost its transport.
  if (code === SdkErrorCode.SendFailed || code === SdkErrorCode.NotConnected || (error as Error | null)?.message === 'Not connected') return notConnected(backend);
  // A remote backend that cannot be reached lost its connection: not a failure of the service's own.
  if (isUnreachable(error)) return { kind: 'disconnected', code: ProtocolErrorCode.InternalError, message: `backend '${backend}' cannot be reached: ${toWireError(error).message}` };
  return { kind: 'internal', code: ProtocolErrorCode.InternalError, message: `backend '${backend}' failed the request: ${toWireError(error).message}` };
}

/** A log line's fields for a failure outside a client's call (a list refresh, a resubscription): the catalogue's code and the error's words. */
export function failureFields(backend: string, requestTimeoutMs: number, error: unknown): { code: string; err: string } {
  return { code: CALL_FAILURE[callErrorOf(backend, requestTimeoutMs, error, false).kind], err: toWireError(error).message };
}
