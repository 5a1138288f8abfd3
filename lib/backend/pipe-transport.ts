import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, ProtocolErrorCode, type RequestId, SdkError, SdkErrorCode, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import { isOversized, LineReader, type OversizedLine, type ReadLine } from '../shared/line-reader.ts';
import { parseJsonRpcLine } from './jsonrpc-line.ts';
import { Code } from '../shared/errors.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import { oversizedMessageId, oversizedMessageText } from './oversized.ts';

const EMPTY = Buffer.alloc(0);

export type PipeTransportOptions = {
  /** Names the backend in the error a request gets when its answer is too large. */
  name: string;
  /** Largest message accepted from the backend, bytes (`--max-message-bytes`). */
  maxMessageBytes: number;
  /** A message over the limit that answers no request in flight: the owner logs it. */
  onOversized: (bytes: number) => void;
  /** A line that is not a JSON-RPC message (a backend printing to stdout, JSON logs): skipped; the owner says so. */
  onStray?: (line: Buffer) => void;
};

// An MCP transport over a child's stdin/stdout (newline-delimited JSON). It deliberately has no
// `pid`/`stderr` accessors: the SDK then probes in place and never treats a probe timeout as a
// legacy answer (service.md allows fallback only on a positive legacy answer).
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Settles with the reason when the backend's side of the pipes ends: its stdout reached EOF or
   * failed, or its stdin broke (EPIPE). Never settles for a close() of ours.
   */
  readonly peerClosed: Promise<string>;
  private endedByPeer!: (reason: string) => void;
  private readonly reader: LineReader;
  private readonly lines: ReadLine[] = [];
  private next = 0;
  // Ids of the requests sent and not yet answered: an oversized answer to one of them fails it.
  private readonly inFlight = new Set<RequestId>();
  private closed = false;
  private deferred = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: PipeTransportOptions,
  ) {
    this.reader = new LineReader(options.maxMessageBytes);
    this.peerClosed = new Promise((resolve) => (this.endedByPeer = resolve));
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onInputEnd);
    this.input.on('close', this.onInputEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  private readonly onData = (chunk: Buffer) => {
    for (const line of this.reader.push(chunk)) this.lines.push(line);
    if (!this.deferred) this.drain();
  };

  // The SDK runs notification handlers a microtask later but settles responses at once, so a
  // progress notification followed by its response in one chunk would lose the progress. After
  // a notification, the rest of the chunk waits for the next turn of the event loop.
  private drain(): void {
    this.deferred = false;
    while (!this.closed && this.next < this.lines.length) {
      const line = this.lines[this.next]!;
      this.lines[this.next++] = EMPTY;
      const message = isOversized(line) ? this.oversized(line) : this.parse(line);
      if (message === null) continue;
      if (!('method' in message) && 'id' in message && message.id !== undefined) this.inFlight.delete(message.id);
      this.onmessage?.(message);
      if ('method' in message && !('id' in message)) {
        this.deferred = true;
        setImmediate(() => this.drain());
        break;
      }
    }
    if (this.next === this.lines.length || this.next >= 1024) {
      this.lines.splice(0, this.next);
      this.next = 0;
    }
  }

  // Lines that are not JSON-RPC messages (a backend printing to stdout, JSON logs) are skipped and told to the owner.
  private parse(line: Buffer): JSONRPCMessage | null {
    const text = line.toString('utf8');
    try {
      return parseJsonRpcLine(text);
    } catch {
      this.options.onStray?.(line);
      return this.malformedAnswer(text);
    }
  }

  // One that looks like the answer to a request in flight (its id, no method) but is not valid
  // JSON-RPC (an error code that is no integer, a result that is no object) fails that request at
  // once: skipped alone, it would leave the call waiting for its requestTimeout.
  private malformedAnswer(text: string): JSONRPCMessage | null {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    if (!isPlainObject(value) || 'method' in value) return null;
    const id = value.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.inFlight.has(id)) return null;
    const { name } = this.options;
    const message = `backend '${name}' answered the request with a message that is not valid JSON-RPC: not read`;
    return { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message, data: { code: Code.backend_error, backend: name, reason: 'malformed_answer' } } };
  }

  // Reported (logged) either way; an answer to a request in flight also fails that request.
  private oversized(line: OversizedLine): JSONRPCMessage | null {
    const id = oversizedMessageId(line);
    this.options.onOversized(line.bytes);
    if (id === null || !this.inFlight.has(id)) return null;
    const { name, maxMessageBytes: limit } = this.options;
    const message = oversizedMessageText(name, line.bytes, limit);
    return { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message, data: { code: Code.message_too_large, bytes: line.bytes, limit } } };
  }

  private readonly onInputEnd = () => this.peerEnded('closed its stdout');
  private readonly onInputError = (error: Error) => {
    this.onerror?.(error);
    this.peerEnded(`stdout failed: ${error.message}`);
  };
  private readonly onOutputError = (error: Error) => {
    this.onerror?.(error);
    this.peerEnded('closed its stdin');
  };

  // Deferred a turn: a send that failed on the broken pipe rejects with its own error first,
  // before closing fails everything in flight as "connection closed".
  private peerEnded(reason: string): void {
    if (this.closed) return;
    this.endedByPeer(reason);
    setImmediate(() => void this.close());
  }

  private track(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) this.inFlight.add(message.id);
    else if (message.method === 'notifications/cancelled') this.inFlight.delete((message.params as { requestId: RequestId }).requestId);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.output.destroyed || this.output.writableEnded) {
        return reject(new SdkError(SdkErrorCode.SendFailed, 'the backend process is no longer accepting input'));
      }
      this.track(message);
      // A failed write also emits 'error' on the stream, which ends the connection.
      const ok = this.output.write(serializeMessage(message), (error) => {
        if (error) reject(new SdkError(SdkErrorCode.SendFailed, 'the backend process is no longer accepting input', { cause: error.message }));
      });
      if (ok) resolve();
      else this.waitForDrain(resolve);
    });
  }

  // Every sender held by a full pipe waits on one 'drain' listener (twelve big calls at once
  // would otherwise add twelve, and Node warns of a leak).
  private drainWaiters: (() => void)[] = [];
  private waitForDrain(resolve: () => void): void {
    this.drainWaiters.push(resolve);
    if (this.drainWaiters.length > 1) return;
    this.output.once('drain', () => {
      const waiting = this.drainWaiters;
      this.drainWaiters = [];
      for (const wake of waiting) wake();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onInputEnd);
    this.input.off('close', this.onInputEnd);
    // The error listeners stay until release(): an error after close must not become an uncaught exception.
    this.lines.length = 0;
    this.inFlight.clear();
    this.onclose?.();
  }

  /** Closes and takes the last listeners off the pipes: for when the child is gone and its pipes are closed. */
  release(): void {
    void this.close();
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
  }
}
