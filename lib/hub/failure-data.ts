// A routed request's failure as its client gets it: the data of the MCP error. Pure.
import { CALL_FAILURE, type CallError } from '../shared/messages/calls.ts';
import { isPlainObject } from '../shared/plain-object.ts';

/**
 * The data of a routed request's failure for its client: the backend's own kept, with the
 * catalogue code beside it unless it has a `code` of its own; ours (the code, the backend, the
 * reason) when it sent none. Data that is no object (a string, a number, an array) cannot take a
 * code without changing what it is: it goes as it came.
 */
export function failureData(error: CallError, backend: string): unknown {
  const code = CALL_FAILURE[error.kind];
  const own = error.data;
  if (own === undefined || own === null) return { code, backend, reason: error.kind };
  return isPlainObject(own) && !('code' in own) ? { ...own, code } : own;
}
