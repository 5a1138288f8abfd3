// The hub's end of the byte pump: each forwarded request becomes a web Request whose body came
// whole or streams in as the main thread sends it, and the app's Response streams back through
// an Outbox (its head and bytes, in as few messages as the app's timing allows). Credits bound both directions (PUMP_WINDOW_BYTES); an abort from the main thread (the
// client went away) cancels the request and its response stream.
import type { MessagePort } from 'node:worker_threads';
import { PUMP_WINDOW_BYTES, type PumpToHub, type PumpToMain } from '../shared/messages/pump.ts';
import { Code, errorBody, httpStatus, jsonRpcErrorBody } from '../shared/errors.ts';
import { sanitize } from '../shared/sanitize.ts';
import { transferable } from '../shared/transfer.ts';
import type { HubApp } from './app.ts';
import { failureFrame, watchFailureFrame } from './failure-frame.ts';
import { answerEnded } from './answer-end.ts';
import { Outbox } from './pump-outbox.ts';
import { isPaced } from './paced-body.ts';
import { rememberWholeBody } from './whole-body.ts';

const NO_BODY = new Set(['GET', 'HEAD']);
/** Methods fetch's Request refuses to carry. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * The URL a forwarded request gets: its target (origin-form `/path?q`, or absolute-form as a
 * proxy sends it) on its Host. The app reads only the path and query; a Host no URL can carry
 * (`a b`, with the Host check off) gives way to localhost. Throws on a target that is no URL.
 */
export function urlOf(target: string, host: string | null): URL {
  if (!target.startsWith('/')) return new URL(target);
  try {
    return new URL(target, `http://${host ?? 'localhost'}`);
  } catch {
    return new URL(target, 'http://localhost');
  }
}

type Exchange = {
  abort: AbortController;
  /** Body chunks not yet taken by the app, and who waits for the next one. */
  pending: Uint8Array[];
  ended: boolean;
  wake: (() => void) | null;
  /** Response bytes sent and not yet written out by the main thread. */
  unacked: number;
  credited: (() => void) | null;
};

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      /* a header value fetch refuses: node accepted it, the app never needs it */
    }
  }
  return headers;
}

export type PumpServer = {
  /** Requests in progress. */
  readonly active: number;
  /** POSTs whose answers have sent no bytes yet: calls under way (a listen stream has sent its first bytes). */
  readonly awaitingAnswer: number;
  /** stdio mode: where stdin bytes go. */
  onStdin?: (chunk: Uint8Array) => void;
  onStdinEnd?: () => void;
  /** stdio mode: bytes for stdout; resolves when the main thread can take more. */
  writeStdout(chunk: Uint8Array): Promise<void>;
  /** stdio mode: stdin bytes consumed. */
  creditStdin(bytes: number): void;
  /** stdio mode: the last stdout bytes have been sent. */
  endStdout(): void;
  /** stdio mode: the requests owed changed (ids added, removed). */
  stdioOwed(add: (string | number)[], remove: (string | number)[]): void;
  /** stdio mode: the client's initialize line, for the hub that would replace this one. */
  stdioInitialize(line: Uint8Array): void;
  /** stdio mode: the initialize line the client sent to the hub this one replaces. */
  onReplay?: (line: Uint8Array) => void;
};

type Next = { read: { done: boolean; value?: Uint8Array | undefined } } | { credit: true };

export type PumpOptions = {
  /** An answer's bytes held for a client beyond its window before it is cut off (DEFAULT_MAX_BACKLOG_BYTES). */
  maxBacklogBytes?: number;
  /**
   * Every answer's bytes held beyond their windows, together (DEFAULT_MAX_HELD_BYTES): past it, an
   * answer that holds an eighth of it or more is cut off. Many clients that each stop reading
   * just under maxBacklogBytes would otherwise hold it many times over (30 of them: 600 MB).
   */
  maxHeldBytes?: number;
  /** A client was cut off for not reading: `bytes` were waiting; `held`: all answers held that much together. */
  onBacklog?: (bytes: number, held?: number) => void;
  /** How long a POST's head waits for its first bytes while other calls are under way (HEAD_HOLD_MS). */
  headHoldMs?: number;
};

/** Twice the default --max-message-bytes: one whole message always fits behind the window. */
export const DEFAULT_MAX_BACKLOG_BYTES = 32 * 1024 * 1024;
/** Four answers' worth of DEFAULT_MAX_BACKLOG_BYTES, for the clients of one hub together. */
export const DEFAULT_MAX_HELD_BYTES = 4 * DEFAULT_MAX_BACKLOG_BYTES;

/** How long a POST's answer head waits for its first bytes while other POSTs are being answered (lib/hub/pump-outbox.ts). */
export const HEAD_HOLD_MS = 50;

export function servePump(port: MessagePort, app: HubApp, onError: (error: unknown) => void, options: PumpOptions = {}): PumpServer {
  const { maxBacklogBytes = DEFAULT_MAX_BACKLOG_BYTES, maxHeldBytes = DEFAULT_MAX_HELD_BYTES, onBacklog, headHoldMs = HEAD_HOLD_MS } = options;
  // What every answer holds beyond its window, together.
  let heldBytes = 0;
  const exchanges = new Map<number, Exchange>();
  const post = (message: PumpToMain, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let stdoutUnacked = 0;
  // POSTs whose answers have sent no bytes yet: calls under way. With another one, an answer's
  // head waits for its first bytes (lib/hub/pump-outbox.ts). A stream that has sent its first
  // bytes (a listen stream's acknowledgement) no longer counts.
  let postsWaiting = 0;
  // Every writer waiting for the window (several answers can be under way at once).
  let stdoutWaiters: (() => void)[] = [];

  function start(message: Extract<PumpToHub, { type: 'request' }>): void {
    const exchange: Exchange = { abort: new AbortController(), pending: [], ended: message.ended, wake: null, unacked: 0, credited: null };
    exchanges.set(message.id, exchange);
    // What fetch's Request refuses (TRACE, a target or Host it cannot make a URL of) is that
    // request's 4xx: thrown here, in the port's message handler, it would end the hub.
    let request: Request;
    try {
      request = requestOf(message, exchange);
    } catch (error) {
      const refusal = FORBIDDEN_METHODS.has(message.method.toUpperCase())
        ? Response.json(errorBody(Code.method_not_allowed, `Method Not Allowed: ${message.method} is not served`), { status: httpStatus(Code.method_not_allowed) })
        : Response.json(errorBody(Code.bad_request, `Bad Request: ${sanitize(error)}`), { status: httpStatus(Code.bad_request) });
      return void respond(message.id, exchange, async () => refusal);
    }
    if (message.method !== 'POST') return void respond(message.id, exchange, () => app(request));
    postsWaiting++;
    let waiting = true;
    const bytesSent = () => {
      if (waiting) postsWaiting--;
      waiting = false;
    };
    void respond(message.id, exchange, () => app(request), bytesSent).finally(bytesSent);
  }

  function requestOf(message: Extract<PumpToHub, { type: 'request' }>, exchange: Exchange): Request {
    const whole = NO_BODY.has(message.method) || !message.ended ? null : message.body;
    // A body that came whole stays beside the Request (lib/hub/whole-body.ts says why).
    const body = NO_BODY.has(message.method) || message.ended ? null : streamedBody(message.id, exchange);
    const headers = headersOf(message.headers);
    const request = new Request(urlOf(message.url, headers.get('host')), {
      method: message.method,
      headers,
      body,
      signal: exchange.abort.signal,
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit);
    if (whole) rememberWholeBody(request, whole);
    return request;
  }

  // A body that streams in after its head: credited as the app takes it. A client that went away
  // mid-body leaves it errored, not ended: a cut request is never read as a whole one.
  function streamedBody(id: number, exchange: Exchange): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (exchange.pending.length === 0 && !exchange.ended) await new Promise<void>((r) => (exchange.wake = r));
        if (exchange.abort.signal.aborted) return controller.error(new Error('the client went away before the body ended'));
        const chunk = exchange.pending.shift();
        if (chunk) {
          controller.enqueue(chunk);
          post({ type: 'credit', id, bytes: chunk.byteLength });
        } else controller.close();
      },
    });
  }

  async function respond(id: number, exchange: Exchange, produce: () => Promise<Response>, bytesSent?: () => void): Promise<void> {
    let response: Response;
    try {
      response = await produce();
    } catch (error) {
      onError(error);
      response = Response.json(jsonRpcErrorBody(Code.internal, `Internal error: ${sanitize(error)}`), { status: httpStatus(Code.internal) });
    }
    if (exchange.abort.signal.aborted) {
      await response.body?.cancel().catch(() => undefined);
      answerEnded(response);
      return void exchanges.delete(id);
    }
    const failure = failureFrame(response);
    const outbox = new Outbox(id, post, exchange.abort.signal);
    outbox.head({ status: response.status, headers: [...response.headers], ...(failure ? { failure } : {}) }, bytesSent && postsWaiting > 1 ? headHoldMs : 0);
    const unwatch = watchFailureFrame(response, (frame) => {
      outbox.flush();
      post({ type: 'failure', id, failure: frame ?? null });
    });
    const reader = response.body?.getReader();
    const stop = () => void reader?.cancel().catch(() => undefined);
    exchange.abort.signal.addEventListener('abort', stop, { once: true });
    // The app's bytes are read as they come: left in the app's stream, they would queue there
    // without limit (the SDK enqueues each event whatever the stream's backlog). Held here until
    // the main thread has written out a window, and no more than maxBacklogBytes: a client that
    // stops reading past that is cut off, not kept in memory. A paced body is read only as the
    // window allows: its source waits and applies its own limits.
    const paced = isPaced(response.body);
    const backlog: Uint8Array[] = [];
    let backlogBytes = 0;
    let reading: Promise<Next> | null = null;
    let done = !reader;
    try {
      for (;;) {
        if (exchange.abort.signal.aborted) return;
        while (backlog.length > 0 && exchange.unacked < PUMP_WINDOW_BYTES) {
          const chunk = backlog.shift()!;
          backlogBytes -= chunk.byteLength;
          heldBytes -= chunk.byteLength;
          exchange.unacked += chunk.byteLength;
          outbox.chunk(chunk);
          bytesSent?.();
        }
        // What waits beyond the window, never a single chunk (one big answer always goes out).
        const overall = heldBytes > maxHeldBytes && backlogBytes * 8 >= maxHeldBytes;
        if (!paced && backlog.length > 1 && (backlogBytes > maxBacklogBytes || overall)) {
          onBacklog?.(backlogBytes, overall ? heldBytes : undefined);
          outbox.flush();
          post({ type: 'reset', id, reason: `the client is not reading its answer: ${backlogBytes} bytes were waiting` });
          exchange.ended = true;
          exchange.wake?.();
          exchange.abort.abort(new Error('the client is not reading its answer'));
          return;
        }
        if (done && backlog.length === 0) break;
        // Wait for the next bytes (a paced body: only while the window has room) or for credit (when the window is full and something waits on it).
        const waits: Promise<Next>[] = [];
        const windowFull = exchange.unacked >= PUMP_WINDOW_BYTES;
        if (!done && !(paced && windowFull)) waits.push((reading ??= reader!.read().then((read) => ({ read }))));
        if (windowFull && (paced || backlog.length > 0)) waits.push(new Promise<Next>((r) => (exchange.credited = () => r({ credit: true }))));
        const next = await Promise.race(waits);
        if ('credit' in next) continue;
        reading = null;
        if (next.read.done) {
          done = true;
          continue;
        }
        if (!next.read.value?.byteLength) continue;
        const chunk = transferable(next.read.value);
        backlog.push(chunk);
        backlogBytes += chunk.byteLength;
        heldBytes += chunk.byteLength;
      }
      outbox.end();
    } catch (error) {
      outbox.flush();
      if (!exchange.abort.signal.aborted) post({ type: 'reset', id, reason: sanitize(error) });
    } finally {
      heldBytes -= backlogBytes;
      outbox.close();
      unwatch();
      answerEnded(response);
      exchange.abort.signal.removeEventListener('abort', stop);
      exchanges.delete(id);
    }
  }

  const server: PumpServer = {
    get active() {
      return exchanges.size;
    },
    get awaitingAnswer() {
      return postsWaiting;
    },
    async writeStdout(chunk) {
      const owned = transferable(chunk);
      stdoutUnacked += owned.byteLength;
      post({ type: 'stdout', chunk: owned }, [owned.buffer as ArrayBuffer]);
      while (stdoutUnacked >= PUMP_WINDOW_BYTES) await new Promise<void>((r) => stdoutWaiters.push(r));
    },
    creditStdin(bytes) {
      post({ type: 'stdinCredit', bytes });
    },
    endStdout() {
      post({ type: 'stdoutEnd' });
    },
    stdioOwed(add, remove) {
      post({ type: 'stdioOwed', add, remove });
    },
    stdioInitialize(line) {
      post({ type: 'stdioInitialize', line });
    },
  };

  port.on('message', (message: PumpToHub) => {
    switch (message.type) {
      case 'request':
        start(message);
        return;
      case 'body': {
        const exchange = exchanges.get(message.id);
        if (!exchange) return;
        exchange.pending.push(message.chunk);
        exchange.wake?.();
        exchange.wake = null;
        return;
      }
      case 'end': {
        const exchange = exchanges.get(message.id);
        if (!exchange) return;
        exchange.ended = true;
        exchange.wake?.();
        exchange.wake = null;
        return;
      }
      case 'abort': {
        const exchange = exchanges.get(message.id);
        if (!exchange) return;
        exchange.ended = true;
        exchange.abort.abort(new Error('the client went away'));
        exchange.wake?.();
        exchange.credited?.();
        exchanges.delete(message.id);
        return;
      }
      case 'credit': {
        const exchange = exchanges.get(message.id);
        if (!exchange) return;
        exchange.unacked -= message.bytes;
        exchange.credited?.();
        exchange.credited = null;
        return;
      }
      case 'stdin':
        server.onStdin?.(message.chunk);
        return;
      case 'stdinEnd':
        server.onStdinEnd?.();
        return;
      case 'stdioReplay':
        server.onReplay?.(message.line);
        return;
      case 'stdoutCredit':
        stdoutUnacked -= message.bytes;
        const waiting = stdoutWaiters;
        stdoutWaiters = [];
        for (const wake of waiting) wake();
        return;
      default: {
        const unknown: never = message;
        onError(new Error(`protocol error: unknown pump message ${JSON.stringify(unknown)}`));
      }
    }
  });
  return server;
}
