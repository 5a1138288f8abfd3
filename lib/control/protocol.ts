// The control bus between the CLI (`agent mcp status|restart|reload`) and a running service
// (decisions §8): newline-delimited JSON over a Unix domain socket (a named pipe on Windows).
// One request per line `{id, op, args}`, one response per line `{id, ok, result | error}`.
import { AgentError, Code, type ErrorCode } from '../shared/errors.ts';
import { jsonLine } from '../shared/line-reader.ts';
import { isPlainObject } from '../shared/plain-object.ts';

export const CONTROL_OPS = ['status', 'restart', 'reload', 'tools'] as const;
export type ControlOp = (typeof CONTROL_OPS)[number];

/** Longest accepted line (request or response), newline excluded. A longer line closes the connection. */
export const MAX_CONTROL_LINE_BYTES = 1024 * 1024;

export type ControlRequest = { id: number; op: ControlOp; args: Record<string, unknown> };

/** A code of the catalogue (lib/shared/errors.ts); a service of another version may send others. */
export type ControlErrorCode = ErrorCode | (string & {});

export type ControlErrorBody = { code: ControlErrorCode; message: string };

/** `id` is null only when the request line could not be read far enough to find its id. */
export type ControlResponse =
  | { id: number | null; ok: true; result: unknown }
  | { id: number | null; ok: false; error: ControlErrorBody };

export type RestartArgs = { server: string };

/** What the service does for each op. A thrown `ControlError` becomes `{ok: false, error}`. */
export interface ControlHandlers {
  status(args: Record<string, unknown>): Promise<unknown> | unknown;
  restart(args: RestartArgs): Promise<unknown> | unknown;
  reload(args: Record<string, unknown>): Promise<unknown> | unknown;
  /** The live tool inventory of one server, with effective descriptions and enabled marks. */
  tools(args: { server: string }): Promise<ToolsResult> | ToolsResult;
}

export type ToolView = {
  /** The server-local (logical) name. */
  name: string;
  qualifiedName: string;
  upstreamDescription: string | null;
  /** After toolDescriptionOverrides. */
  description: string | null;
  enabled: boolean;
  overridden: boolean;
};
export type ToolsResult = { server: string; status: string; tools: ToolView[]; /** disabledTools entries naming no observed tool. */ unresolved: string[] };


/** An expected failure of an op, answered as `{ok: false, error: {code, message}}`. */
export class ControlError extends AgentError {
  override readonly name = 'ControlError';
}

export function isControlOp(value: unknown): value is ControlOp {
  return typeof value === 'string' && (CONTROL_OPS as readonly string[]).includes(value);
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

export function errorResponse(id: number | null, code: ControlErrorCode, message: string): ControlResponse {
  return { id, ok: false, error: { code, message } };
}

/**
 * Reads one request line. Anything unusable yields the `bad_request` response to send back,
 * carrying the request's id when one could be read. A missing `args` reads as `{}`;
 * `restart` requires a non-empty string `args.server`.
 */
export function parseControlRequest(line: string): { ok: true; request: ControlRequest } | { ok: false; response: ControlResponse } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, response: errorResponse(null, Code.bad_request, `Malformed JSON: ${(error as Error).message}`) };
  }
  if (!isPlainObject(value)) return { ok: false, response: errorResponse(null, Code.bad_request, 'A request must be a JSON object {id, op, args}') };
  if (!isId(value.id)) return { ok: false, response: errorResponse(null, Code.bad_request, 'A request needs an integer "id"') };
  const { id, op } = value;
  if (!isControlOp(op)) {
    return { ok: false, response: errorResponse(id, Code.bad_request, `Unknown op ${JSON.stringify(op)}; expected one of ${CONTROL_OPS.join(', ')}`) };
  }
  const args = value.args ?? {};
  if (!isPlainObject(args)) return { ok: false, response: errorResponse(id, Code.bad_request, '"args" must be an object') };
  if ((op === 'restart' || op === 'tools') && (typeof args.server !== 'string' || args.server === '')) {
    return { ok: false, response: errorResponse(id, Code.bad_request, `${op} needs "args.server", the server name`) };
  }
  return { ok: true, request: { id, op, args } };
}

/** Checks that a parsed line has the shape of a response (used by the client). */
export function isControlResponse(value: unknown): value is ControlResponse {
  if (!isPlainObject(value)) return false;
  if (!(value.id === null || isId(value.id))) return false;
  if (value.ok === true) return 'result' in value;
  if (value.ok === false) {
    const error = value.error;
    return isPlainObject(error) && typeof error.code === 'string' && typeof error.message === 'string';
  }
  return false;
}

/** One message as a line on the wire. */
export function encodeControlMessage(message: ControlRequest | ControlResponse): string {
  return jsonLine(message);
}
