// The byte pump between the main thread's HTTP listener (and stdin/stdout in stdio mode) and a
// hub. The main thread never parses what it forwards: a request crosses as its head and body
// bytes (one message when its declared body fits a window), the answer comes back as its head
// and bytes in parts (one part when it completes at once), streams included. Back-pressure both ways
// is by credits: a side sends at most PUMP_WINDOW_BYTES beyond what the other has acknowledged
// as consumed, so neither queue grows without bound.
export const PUMP_WINDOW_BYTES = 1024 * 1024;

/** A request's head as the main thread received it. `headers` is node's rawHeaders (name, value, ...). */
export type RequestHead = {
  id: number;
  method: string;
  url: string;
  headers: string[];
  remoteAddress: string | null;
};

/** A response head as the hub's app answered. */
export type ResponseHead = {
  status: number;
  headers: [string, string][];
  /** What ends a streamed answer if the hub dies before finishing it (JSON-RPC errors for its requests, as SSE events). */
  failure?: string;
};

/**
 * A request whose declared body fits in one window crosses in one message, body included
 * (`ended`); a longer or unsized body streams after its head as `body` messages and an `end`.
 */
export const INLINE_BODY_BYTES = PUMP_WINDOW_BYTES;

/** main → hub */
export type PumpToHub =
  | ({ type: 'request'; ended: false } & RequestHead)
  /** The whole request: no `body` nor `end` message follows, and the hub sends no body credit. */
  | ({ type: 'request'; ended: true; body: Uint8Array | null } & RequestHead)
  | { type: 'body'; id: number; chunk: Uint8Array }
  /** The request body is complete. */
  | { type: 'end'; id: number }
  /** The client went away (or its body broke a limit): stop working on it. */
  | { type: 'abort'; id: number }
  /** Response bytes the main thread has written out. */
  | { type: 'credit'; id: number; bytes: number }
  /** stdio mode: bytes from stdin, its end, and stdout bytes written out. */
  | { type: 'stdin'; chunk: Uint8Array }
  | { type: 'stdinEnd' }
  | { type: 'stdoutCredit'; bytes: number }
  /** stdio mode, to a hub that replaces one that died: the client's initialize line, heard before stdin flows again. */
  | { type: 'stdioReplay'; line: Uint8Array };

/** hub → main */
export type PumpToMain =
  /**
   * The answer's next part: its head (first time only), the bytes produced since the last part,
   * and whether it is complete. What the app produces in one turn of the hub's loop crosses as
   * one message (a tool call's SSE event and the end of its stream: one message, one socket
   * write). The main thread credits the chunks of an answer that is not complete once written.
   */
  | { type: 'answer'; id: number; head?: ResponseHead; chunks: Uint8Array[]; end: boolean }
  /** A stream's `failure` changed (legacy SSE: the requests it owes an answer); null: none. */
  | { type: 'failure'; id: number; failure: string | null }
  /** The answer broke off after its head: the main thread ends the connection. */
  | { type: 'reset'; id: number; reason: string }
  /** Request body bytes the hub has consumed. */
  | { type: 'credit'; id: number; bytes: number }
  | { type: 'stdout'; chunk: Uint8Array }
  /** stdio mode: every answer owed after stdin's end has been sent; nothing more follows. */
  | { type: 'stdoutEnd' }
  /**
   * stdio mode: the ids of requests the hub now owes an answer (`add`) and no longer owes
   * (`remove`), sent once per turn: if the hub dies, the main thread fails those with an error line each.
   */
  | { type: 'stdioOwed'; add: (string | number)[]; remove: (string | number)[] }
  /** stdio mode: the line of the client's initialize request, kept as bytes for a hub that replaces this one. */
  | { type: 'stdioInitialize'; line: Uint8Array }
  | { type: 'stdinCredit'; bytes: number };
