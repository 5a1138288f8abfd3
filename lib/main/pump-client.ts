// The main thread's end of the byte pump to one hub: a request is forwarded as its head and body
// bytes (never parsed), the hub's answer is written back as it comes, streams included. Credits
// bound both directions (PUMP_WINDOW_BYTES): the client's socket is paused when the hub is a
// window behind, and the hub stops sending when the client is. A client that goes away aborts
// its exchange in the hub.
import type { HeldAnswers } from './held-answers.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { Code, httpStatus, jsonRpcErrorBody, Messages } from '../shared/errors.ts';
import { INLINE_BODY_BYTES, PUMP_WINDOW_BYTES, type PumpToHub, type PumpToMain, type RequestHead } from '../shared/messages/pump.ts';
import { transferable } from '../shared/transfer.ts';
import { writeJson } from './json-answer.ts';

type Exchange = {
  req: IncomingMessage;
  res: ServerResponse;
  /** Request bytes sent and not yet consumed by the hub. */
  unacked: number;
  paused: boolean;
  headSent: boolean;
  /** What ends the answer if the hub dies while it streams (the hub's bytes, written as they are). */
  failure?: string;
  /** The hub has the request (a whole one is read here first). */
  posted: boolean;
};

// node's header record from the hub's list: a repeated name (set-cookie) keeps every value.
function headerRecord(list: [string, string][]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of list) {
    const known = headers[name];
    headers[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
  }
  return headers;
}

export type PumpLimits = {
  maxBodyBytes: number;
  /** Answers their clients are not reading, every hub's together (held-answers.ts). */
  held?: HeldAnswers;
};

// A JSON-RPC error answer; once an answer has started it can only be cut.
function jsonError(res: ServerResponse, code: typeof Code.message_too_large | typeof Code.hub_failed, message: string): void {
  if (res.headersSent) return void res.destroy();
  writeJson(res, httpStatus(code), jsonRpcErrorBody(code, message));
}


export class PumpClient {
  private nextId = 1;
  private readonly exchanges = new Map<number, Exchange>();
  /** stdio mode */
  onStdout?: (chunk: Uint8Array, written: () => void) => void;
  onStdinCredit?: (bytes: number) => void;
  onStdoutEnd?: () => void;
  /** stdio mode: the client's initialize line as the hub read it (bytes: the main thread does not parse them). */
  onStdioInitialize?: (line: Uint8Array) => void;
  /** stdio mode: the ids of the requests this hub owes an answer, as it reported them. */
  readonly stdioOwed = new Set<string | number>();

  constructor(
    private readonly port: MessagePort,
    private readonly limits: PumpLimits,
    /** A message this version does not know (a bug): logged, never thrown on the probe path's thread. */
    private readonly protocolError: (fields: Record<string, unknown>, msg: string) => void = () => undefined,
  ) {
    port.on('message', (message: PumpToMain) => this.onMessage(message));
  }

  /** The hub is gone: what it posted before it went and is not handled yet is handled now (what it owed, what it read). */
  drain(): void {
    for (let next = receiveMessageOnPort(this.port); next; next = receiveMessageOnPort(this.port)) this.onMessage(next.message as PumpToMain);
  }

  private post(message: PumpToHub, transfer: ArrayBuffer[] = []): void {
    this.port.postMessage(message, transfer);
  }

  get active(): number {
    return this.exchanges.size;
  }

  /** Forwards one request; the answer is written to `res` as it comes. */
  forward(req: IncomingMessage, res: ServerResponse): void {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.limits.maxBodyBytes) {
      req.resume();
      return jsonError(res, Code.message_too_large, Messages.bodyTooLarge(this.limits.maxBodyBytes));
    }
    const id = this.nextId++;
    const exchange: Exchange = { req, res, unacked: 0, paused: false, headSent: false, posted: false };
    this.exchanges.set(id, exchange);
    // The client went away before the answer was complete.
    res.on('close', () => {
      if (!this.exchanges.has(id)) return;
      this.abort(id);
    });
    const head = { id, method: req.method ?? 'GET', url: req.url ?? '/', headers: req.rawHeaders, remoteAddress: req.socket.remoteAddress ?? null };
    const bodiless = req.method === 'GET' || req.method === 'HEAD' || declared === 0;
    if (bodiless || (Number.isFinite(declared) && declared <= INLINE_BODY_BYTES)) return this.forwardWhole(id, exchange, head, bodiless);
    exchange.posted = true;
    this.post({ type: 'request', ended: false, ...head });
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      if (!this.exchanges.has(id)) return;
      received += chunk.byteLength;
      if (received > this.limits.maxBodyBytes) {
        this.abort(id);
        return jsonError(res, Code.message_too_large, Messages.bodyTooLarge(this.limits.maxBodyBytes));
      }
      const bytes = transferable(chunk);
      exchange.unacked += bytes.byteLength;
      this.post({ type: 'body', id, chunk: bytes }, [bytes.buffer as ArrayBuffer]);
      if (exchange.unacked >= PUMP_WINDOW_BYTES && !exchange.paused) {
        exchange.paused = true;
        req.pause();
      }
    });
    req.on('end', () => {
      if (this.exchanges.has(id)) this.post({ type: 'end', id });
    });
  }

  // A request without a body, or with a declared one of at most a window: read here, then one
  // message (node bounds what it reads to the declared length).
  private forwardWhole(id: number, exchange: Exchange, head: RequestHead, bodiless: boolean): void {
    const send = (body: Uint8Array | null) => {
      if (!this.exchanges.has(id)) return;
      exchange.posted = true;
      this.post({ type: 'request', ended: true, body, ...head }, body ? [body.buffer as ArrayBuffer] : []);
    };
    if (bodiless) {
      exchange.req.resume();
      return send(null);
    }
    const chunks: Buffer[] = [];
    exchange.req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A lone chunk is copied only when it shares its buffer; several are concatenated (copied once
    // more only when node pools the result, under 4 KiB).
    exchange.req.on('end', () => send(transferable(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
  }

  private abort(id: number): void {
    const exchange = this.exchanges.get(id);
    this.exchanges.delete(id);
    // A request still being read here never reached the hub.
    if (exchange?.posted) this.post({ type: 'abort', id });
  }

  private onMessage(message: PumpToMain): void {
    switch (message.type) {
      case 'answer': {
        const exchange = this.exchanges.get(message.id);
        if (!exchange) return;
        const { res } = exchange;
        if (message.head) {
          exchange.headSent = true;
          if (message.head.failure) exchange.failure = message.head.failure;
          res.writeHead(message.head.status, headerRecord(message.head.headers));
        }
        const { chunks } = message;
        if (message.end) {
          // Complete: head, bytes and end leave in one write; no credit (the hub is done with it).
          this.exchanges.delete(message.id);
          for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
          if (chunks.length) res.end(chunks[chunks.length - 1]);
          else res.end();
          return void this.limits.held?.wrote(res);
        }
        // Streams (SSE, GET streams) must reach the client as they are written.
        if (!chunks.length) return void res.flushHeaders();
        let bytes = 0;
        for (const chunk of chunks) bytes += chunk.byteLength;
        for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
        res.write(chunks[chunks.length - 1], () => this.post({ type: 'credit', id: message.id, bytes }));
        return void this.limits.held?.wrote(res);
      }
      case 'failure': {
        const exchange = this.exchanges.get(message.id);
        if (exchange) exchange.failure = message.failure ?? undefined;
        return;
      }
      case 'reset': {
        const exchange = this.exchanges.get(message.id);
        if (!exchange) return;
        this.exchanges.delete(message.id);
        exchange.res.destroy();
        return;
      }
      case 'credit': {
        const exchange = this.exchanges.get(message.id);
        if (!exchange) return;
        exchange.unacked -= message.bytes;
        if (exchange.paused && exchange.unacked < PUMP_WINDOW_BYTES) {
          exchange.paused = false;
          exchange.req.resume();
        }
        return;
      }
      case 'stdout': {
        const bytes = message.chunk.byteLength;
        this.onStdout?.(message.chunk, () => this.post({ type: 'stdoutCredit', bytes }));
        return;
      }
      case 'stdoutEnd':
        this.onStdoutEnd?.();
        return;
      case 'stdioOwed':
        for (const id of message.add) this.stdioOwed.add(id);
        for (const id of message.remove) this.stdioOwed.delete(id);
        return;
      case 'stdinCredit':
        this.onStdinCredit?.(message.bytes);
        return;
      case 'stdioInitialize':
        this.onStdioInitialize?.(message.line);
        return;
      default: {
        const unknown: never = message;
        this.protocolError({ code: Code.protocol_error, message: unknown }, 'protocol error: unknown message from an MCP worker\'s pump');
      }
    }
  }

  /** stdio mode: bytes read from stdin. */
  stdin(chunk: Uint8Array): void {
    const bytes = transferable(chunk);
    this.post({ type: 'stdin', chunk: bytes }, [bytes.buffer as ArrayBuffer]);
  }

  stdinEnd(): void {
    this.post({ type: 'stdinEnd' });
  }

  /** stdio mode: the client's initialize line, to a hub that replaces the one that read it (copied: the bridge keeps its own). */
  stdioReplay(line: Uint8Array): void {
    this.post({ type: 'stdioReplay', line });
  }

  /**
   * The hub is gone: a request not answered yet gets 503 saying so (it may have been acted on);
   * a streamed answer to requests ends with the error the hub prepared for each of them; any
   * other answer under way is cut (its connection closed: a stream's client reconnects).
   */
  failAll(): number {
    const count = this.exchanges.size;
    for (const exchange of this.exchanges.values()) {
      if (!exchange.headSent) jsonError(exchange.res, Code.hub_failed, Messages.hubFailed);
      else if (exchange.failure !== undefined) exchange.res.end(exchange.failure);
      else exchange.res.destroy();
    }
    this.exchanges.clear();
    return count;
  }
}
