// The JSON-RPC error a request gets when the hub handling it dies before answering (catalogue
// code hub_failed): built by the hub for the SSE frames it prepares, and by the main thread for
// stdio mode's requests the dead hub owed (it knows their ids, never their bodies). Pure.
import { Code, Messages, rpcCode } from './errors.ts';

export type RequestId = string | number;

export function hubFailedError(id: RequestId): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: rpcCode(Code.hub_failed), message: Messages.hubFailed, data: { code: Code.hub_failed } } });
}

/** stdio mode: one error line per request owed, for stdout; '' when nothing is owed. */
export function failureLines(ids: Iterable<RequestId>): string {
  let lines = '';
  for (const id of ids) lines += `${hubFailedError(id)}\n`;
  return lines;
}
