// The byte pump between the main thread's HTTP listener (and stdin/stdout in stdio mode) and a
// hub. The main thread never parses what it forwards: a request crosses as its head and body
// bytes, the answer comes back as a head and chunks, streams included. Back-pressure both ways
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

/** main → hub */
export type PumpToHub =
  | ({ type: 'request' } & RequestHead)
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
  | { type: 'stdoutCredit'; bytes: number };

/** hub → main */
export type PumpToMain =
  /** `failure`: what ends a streamed answer if the hub dies before finishing it (JSON-RPC errors for its requests, as SSE events). */
  | { type: 'head'; id: number; status: number; headers: [string, string][]; failure?: string }
  | { type: 'chunk'; id: number; chunk: Uint8Array }
  /** A stream's `failure` changed (legacy SSE: the requests it owes an answer); null: none. */
  | { type: 'failure'; id: number; failure: string | null }
  | { type: 'end'; id: number }
  /** The answer broke off after its head: the main thread ends the connection. */
  | { type: 'reset'; id: number; reason: string }
  /** Request body bytes the hub has consumed. */
  | { type: 'credit'; id: number; bytes: number }
  | { type: 'stdout'; chunk: Uint8Array }
  | { type: 'stdinCredit'; bytes: number };
