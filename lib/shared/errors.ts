// The error catalogue: every failure the service or the CLI reports has one stable code here,
// with what it means and, where it applies, its HTTP status, its JSON-RPC error code and the CLI's
// exit code. HTTP bodies carry the code as `{error: code, message}`, the control bus as
// `{code, message}`, log lines as `code`; JSON-RPC error answers carry the catalogue's numeric
// code. The exit codes of the command line live here too. Pure: every thread may import it.

export const EXIT_OK = 0;
/** A runtime failure: the default for any error that reaches the command line. */
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
/** `agent mcp ...` found no running service to talk to. */
export const EXIT_NO_SERVICE = 3;
export type ExitCode = typeof EXIT_OK | typeof EXIT_RUNTIME | typeof EXIT_USAGE | typeof EXIT_NO_SERVICE;

export type ErrorEntry = {
  meaning: string;
  /** The HTTP status of an answer carrying the code. */
  status?: number;
  /** The JSON-RPC error code of an MCP answer carrying it. */
  rpc?: number;
  /** The exit code of a command that ends with it; EXIT_RUNTIME when absent. */
  exit?: ExitCode;
};

const CATALOGUE = {
  internal: { meaning: 'An unexpected failure inside the service (a bug); the message says what failed', status: 500, rpc: -32603 },
  usage: { meaning: 'A command line that cannot run: an unknown option, a missing or extra argument, an invalid option value', exit: EXIT_USAGE },
  bad_request: { meaning: 'A request that cannot be read: malformed JSON or an unknown op on the control socket, a 2025 MCP request without its Mcp-Session-Id, a POST /messages without its sessionId, an HTTP request with more than one Host header or a target that is no URL', status: 400, rpc: -32000 },
  message_too_large: { meaning: 'A message over its size limit: an MCP request body over --max-message-bytes, a control request line over 1 MiB', status: 413, rpc: -32600 },
  protocol_error: { meaning: 'A thread sent a message this version does not know (a bug)' },

  // The HTTP routes.
  not_found: { meaning: 'No such route, or no such server or tool in a REST view or /health/mcp/<server>', status: 404 },
  method_not_allowed: { meaning: 'An HTTP method the service does not serve (TRACE, CONNECT, TRACK), or one an MCP endpoint does not take (/mcp: GET, POST, DELETE; /sse: GET; /messages: POST), or a health route or REST view (GET and HEAD only)', status: 405 },
  forbidden_host: { meaning: 'The Host header is not admitted (DNS rebinding guard); see --allowed-hosts', status: 403 },
  forbidden_origin: { meaning: 'The Origin header is not admitted (browser pages of other sites); see --allowed-origins', status: 403 },
  rate_limited: { meaning: "Over the health routes' quota for this client IP; retry after Retry-After seconds", status: 429 },
  health_check_failed: { meaning: 'The health report could not be built', status: 500 },
  rate_limiter_failed: { meaning: 'The health rate limiter failed', status: 500 },
  invalid_tag_filter: { meaning: 'A malformed ?tags= or ?tag-filter=, or both at once; the message gives the position', status: 400 },
  hub_unavailable: { meaning: 'No MCP worker is up: the service is starting or one is restarting; retry in a moment', status: 503, rpc: -32603 },
  hub_failed: { meaning: 'The MCP worker handling the request died before it answered (it is restarted): whether a call took effect is unknown', status: 503, rpc: -32603 },
  too_many_sessions: { meaning: 'The service keeps --max-sessions MCP sessions already; close idle ones or retry later', status: 503, rpc: -32000 },
  service_stopping: { meaning: 'The service is shutting down (a signal, or in stdio mode the end of stdin past its drain deadline): the request was not completed', rpc: -32603 },
  client_too_slow: { meaning: 'An MCP client stopped reading what it was sent (an answer with more than twice --max-message-bytes waiting, or an SSE stream more than 8 MiB behind): its connection was cut' },
  session_not_found: { meaning: 'The MCP session id is unknown (closed, idle too long, or from before a restart): start a new session', status: 404, rpc: -32001 },
  unknown_method: { meaning: "No such MCP method, or one the request's protocol era does not have", status: 404, rpc: -32601 },

  // Routed MCP requests.
  unknown_tool: { meaning: 'No such tool (an MCP call or `agent mcp tools disable` of a tool the backend does not have)', rpc: -32602 },
  unknown_prompt: { meaning: 'No such prompt', rpc: -32602 },
  unknown_resource: { meaning: 'No such resource', rpc: -32602 },
  tool_disabled: { meaning: 'The tool is in disabledTools; `agent mcp tools enable` lifts it', rpc: -32602 },
  backend_unavailable: { meaning: 'The backend is not connected (starting, restarting, failed or stopped)', rpc: -32603 },
  backend_timeout: { meaning: "The backend did not answer within its requestTimeout", rpc: -32603 },
  backend_disconnected: { meaning: "The backend's connection ended during the request (an exit or a restart); it is not replayed", rpc: -32603 },
  call_cancelled: { meaning: 'The client cancelled the request, or went away', rpc: -32603 },
  too_deep: { meaning: 'A call\'s params, or a message of a backend (an answer, a tool list, a request, a notification), nest more than 1,000 levels deep: not read, nor passed between the service\'s threads', rpc: -32602 },
  backend_error: { meaning: "The backend answered with an MCP error; its own JSON-RPC code is kept" },

  // The control bus and `agent mcp ...`.
  no_service: { meaning: 'No running service answers on the control socket', exit: EXIT_NO_SERVICE },
  service_running: { meaning: 'Another service already runs on this configuration directory (it holds the control socket)' },
  control_timeout: { meaning: 'The service accepted the control connection but did not answer in time' },
  bad_response: { meaning: 'The control socket gave no usable answer: not a response, too large, or closed without one' },
  unsafe_path: { meaning: 'A control socket or runtime directory belongs to another user or is not what it should be: it is not used' },
  unknown_server: { meaning: 'The server name is not in the configuration, or the running service has no backend of that name' },
  not_running: { meaning: 'The server is disabled, invalid or stopping: it has no live backend' },
  invalid_config: { meaning: 'The configuration was rejected (`agent mcp reload`); the message names the file, line and reason' },

  // Configuration files.
  unreadable: { meaning: 'mcp.json cannot be read or is not valid JSON, so it cannot be edited' },
  not_editable: { meaning: 'The entry to edit is not of the expected shape (for example disabledTools is not an array); fix it by hand' },
  write_failed: { meaning: 'Writing the backup or mcp.json failed; the file is left unchanged' },
  bad_tool_name: { meaning: 'An empty tool name, or a qualified name with nothing after its prefix', exit: EXIT_USAGE },
  undefined_variable: { meaning: 'A $NAME reference in mcp.json names no variable of the environment or of the .env: that server is invalid' },
  invalid_cidr: { meaning: 'An entry of --health-rate-exempt is not an IP address or CIDR', exit: EXIT_USAGE },
} satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof CATALOGUE;

export const ERRORS: Readonly<Record<ErrorCode, ErrorEntry>> = CATALOGUE;

/** Each code under its own name: `Code.not_found === 'not_found'`. */
export const Code = Object.freeze(Object.fromEntries(Object.keys(CATALOGUE).map((code) => [code, code]))) as { readonly [K in ErrorCode]: K };

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(CATALOGUE, value);
}

/** The wording of answers written by more than one module (the main thread's and the hub's). */
export const Messages = {
  hubUnavailable: 'The MCP service is restarting; retry in a moment',
  hubFailed: 'The MCP worker handling this request stopped before it answered and is restarting; the request may or may not have taken effect: retry in a moment if it is safe to repeat',
  bodyTooLarge: (limit: number) => `Request body too large: the limit is ${limit} bytes (--max-message-bytes)`,
  noSuchRoute: 'No such route',
  serviceStopping: 'The service is shutting down: the request was not completed',
  serverNotFound: (name: string) => `Server '${name}' not found`,
} as const;

/** The HTTP status of a code (500 for one that has none). */
export function httpStatus(code: ErrorCode): number {
  return ERRORS[code].status ?? 500;
}

/** The exit code for a code, also one from another version on the wire (EXIT_RUNTIME when unknown). */
export function exitCode(code: string): ExitCode {
  return (isErrorCode(code) ? ERRORS[code].exit : undefined) ?? EXIT_RUNTIME;
}

/** An error of the service or the CLI, with its catalogue code; the original error stays as `cause`. */
export class AgentError extends Error {
  override readonly name: string = 'AgentError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The JSON body of an HTTP error answer (REST views, health, the Host/Origin guard). */
export function errorBody<C extends ErrorCode>(code: C, message: string): { error: C; message: string } {
  return { error: code, message };
}

/** The JSON-RPC error code of a code (-32603, internal error, for one that has none). */
export function rpcCode(code: ErrorCode): number {
  return ERRORS[code].rpc ?? -32603;
}

/**
 * A JSON-RPC error answer to no particular request (an HTTP error of the MCP endpoints). `rpc`
 * overrides the catalogue's number where an endpoint has always answered with another one;
 * `data.code` names the catalogue's code, as routed errors do (hub_unavailable and hub_failed
 * share -32603).
 */
export function jsonRpcErrorBody(code: ErrorCode, message: string, rpc = rpcCode(code)): { jsonrpc: '2.0'; error: { code: number; message: string; data: { code: ErrorCode } }; id: null } {
  return { jsonrpc: '2.0', error: { code: rpc, message, data: { code } }, id: null };
}
