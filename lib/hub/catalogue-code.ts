// Every JSON-RPC error the hub sends names its catalogue code in `data.code` (README "Errors").
// The gateway's own errors are thrown with one; what the MCP SDK answers by itself has none: an
// unknown method, params that fail its schema, a 2026-07-28 request whose headers and body
// disagree or whose version it does not serve, an HTTP answer (415 for a wrong Content-Type, 406
// for a wrong Accept, -32700 for a body that is no JSON, 400 `Server not initialized`, 409 for a
// second GET stream). Those get the code their JSON-RPC number or HTTP status says, added to the
// `data` they carry (never replacing a `code` there). Only error answers are read again.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { Code, type ErrorCode } from '../shared/errors.ts';
import { isPlainObject } from '../shared/plain-object.ts';

/** The catalogue's code for an error the SDK answered with this JSON-RPC number, else this HTTP status. */
export function codeForError(rpc: unknown, status?: number): ErrorCode {
  if (rpc === -32601) return Code.unknown_method;
  if (rpc === -32603) return Code.internal;
  switch (status) {
    case undefined:
      return Code.bad_request;
    case 404:
      return Code.session_not_found;
    case 405:
      return Code.method_not_allowed;
    case 413:
      return Code.message_too_large;
    default:
      return status >= 500 ? Code.internal : Code.bad_request;
  }
}

/** The error object with `data.code` added where it has none; the same object when it has one, or `data` is no object (a string, a number, an array: it goes as it is). */
function coded(error: Record<string, unknown>, status?: number): Record<string, unknown> {
  const data = error.data;
  if (data === undefined || data === null) return { ...error, data: { code: codeForError(error.code, status) } };
  if (isPlainObject(data) && !('code' in data)) return { ...error, data: { ...data, code: codeForError(error.code, status) } };
  return error;
}

/** A message to a client, with its error coded (anything else is returned as it is). */
export function withErrorCode(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: unknown }).error;
  if (!isPlainObject(error)) return message;
  const next = coded(error);
  return next === error ? message : ({ ...message, error: next } as JSONRPCMessage);
}

/**
 * `response` with its JSON-RPC error coded; any other answer as it is. Only error statuses are
 * read, unless `anyStatus` (a `subscriptions/listen` the SDK refuses answers 200 with a JSON error;
 * its stream, when it accepts, is no JSON and passes unread).
 */
export async function withCatalogueCode(response: Response, { anyStatus = false } = {}): Promise<Response> {
  if ((response.status < 400 && !anyStatus) || !response.headers.get('content-type')?.includes('application/json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers });
  }
  const error = isPlainObject(body) ? body.error : undefined;
  if (!isPlainObject(body) || !isPlainObject(error)) return new Response(text, { status: response.status, headers });
  const next = coded(error, response.status);
  if (next === error) return new Response(text, { status: response.status, headers });
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, error: next }), { status: response.status, headers });
}
