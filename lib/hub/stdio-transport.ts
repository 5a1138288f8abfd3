// stdio mode's MCP transport in the hub: stdin bytes arrive over the byte pump, stdout bytes
// leave over it. One limit for one message (`--max-message-bytes`): an oversized line is skipped
// and answered with an error naming the limit, a malformed line with a parse error, and reading
// goes on either way (a client can no longer lock the service with one huge line).
// stdin's end is not the end of the conversation: every request read by then (a last line
// without its '\n' included) is still answered, then the transport closes and tells the channel,
// so `agent serve --transport stdio < requests` gets its answers.
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { isOversized, jsonLine, LineReader } from '../shared/line-reader.ts';
import { findJsonRpcId } from '../shared/jsonrpc-id.ts';
import { Code, type ErrorCode, Messages, rpcCode } from '../shared/errors.ts';
import { withErrorCode } from './catalogue-code.ts';

export type StdioChannel = {
  onStdin?: (chunk: Uint8Array) => void;
  onStdinEnd?: () => void;
  writeStdout(chunk: Uint8Array): Promise<void>;
  creditStdin(bytes: number): void;
  /** Nothing more will be written: what was is the client's last answer. */
  endStdout(): void;
  /** The requests owed changed: ids now owed, ids no longer owed (the main thread fails those left if the hub dies). */
  stdioOwed(add: (string | number)[], remove: (string | number)[]): void;
  /** The client's initialize line: kept by the main thread for a hub that would replace this one. */
  stdioInitialize(line: Uint8Array): void;
  /** The initialize line the client sent to the hub this one replaces: heard before anything from stdin. */
  onReplay?: (line: Uint8Array) => void;
};

// An oversized line's head: a response says "result" or "error" before any "method" (a request's).
function looksLikeResponse(head: Buffer): boolean {
  const text = head.toString('latin1', 0, Math.min(head.length, 4096));
  const answer = text.search(/"(result|error)"\s*:/);
  const method = text.search(/"method"\s*:/);
  return answer !== -1 && (method === -1 || answer < method);
}

// Ends with the connection, never with an answer: not owed when stdin ends.
const LONG_LIVED = new Set(['subscriptions/listen']);
const owesAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } => isJSONRPCRequest(message) && !LONG_LIVED.has(message.method);
// What a question to the client gets once stdin has ended (the SDK's "connection closed").
const CONNECTION_CLOSED = -32000;
// The id prefix of a replayed initialize (a random id each time): its answer is the hub's alone.
export const REPLAY_ID_PREFIX = 'agent:replayed-initialize:';

type Id = string | number | null;

export class ChannelStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees each inbound message before the server does and may replace it, also after a wait; messages keep their order. */
  intercept?: (message: JSONRPCMessage) => JSONRPCMessage | Promise<JSONRPCMessage>;
  private readonly reader: LineReader;
  // Messages behind one the intercept is still working on wait their turn.
  private inbound: Promise<void> = Promise.resolve();
  private backlog = 0;
  private closed = false;
  // Until the server starts, stdin waits here, unacknowledged: the pump's window bounds it.
  private waiting: Uint8Array[] | null = [];
  // stdin has ended: answer what was asked, then close.
  private inputEnded = false;
  // Every line stdin brought has been read (after its end): only then can nothing more be owed.
  private allRead = false;
  // Requests read and not answered yet (nor cancelled by the client), counted per id: a client may repeat one.
  private readonly owed = new Map<string | number, number>();
  // What the main thread has not heard yet of the owed ids: told once per turn, not per change.
  private owedAdded = new Set<string | number>();
  private owedRemoved = new Set<string | number>();
  private owedTold = true;
  // Questions sent to the client and not answered yet.
  private readonly asked = new Set<string | number>();
  // A replayed initialize heard before serving started: delivered first.
  private replay: JSONRPCMessage | null = null;
  // The id of the replayed initialize whose answer is still to come (kept from the client).
  private replayId: string | null = null;
  // The client's initialize read and not answered yet: its line goes to the main thread once it succeeds.
  private initializing: { id: string | number; line: Uint8Array } | null = null;

  constructor(
    private readonly channel: StdioChannel,
    private readonly maxMessageBytes: number,
  ) {
    this.reader = new LineReader(maxMessageBytes);
    channel.onStdin = (chunk) => (this.waiting ? this.waiting.push(chunk) : this.read(chunk));
    channel.onStdinEnd = () => this.endInput();
    channel.onReplay = (line) => this.replayInitialize(line);
  }

  // This hub replaces one that died: the client initialized with that one, and will not again.
  private replayInitialize(line: Uint8Array): void {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8')));
    } catch {
      return; // It was parsed once already: not reached.
    }
    if (!isJSONRPCRequest(message) || message.method !== 'initialize') return;
    this.replayId = `${REPLAY_ID_PREFIX}${randomUUID()}`;
    const replayed = { ...message, id: this.replayId };
    if (this.waiting) this.replay = replayed;
    else this.deliver(replayed);
  }

  // A chunk is read in two steps: its lines are taken (their requests owed), the main thread hears
  // which are owed and that the chunk was read, and only then does the server get them. A hub that
  // dies handling one leaves the main thread an error line to send for each request it took, and no
  // line it read is sent to the next hub (the line that killed it included).
  private read(chunk: Uint8Array): void {
    const taken: JSONRPCMessage[] = [];
    for (const line of this.reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
      const message = this.take(line);
      if (message) taken.push(message);
    }
    this.tellOwed();
    this.channel.creditStdin(chunk.byteLength);
    for (const message of taken) this.deliver(message);
  }

  async start(): Promise<void> {
    const waiting = this.waiting ?? [];
    this.waiting = null;
    if (this.replay) this.deliver(this.replay);
    this.replay = null;
    for (const chunk of waiting) this.read(chunk);
    if (this.inputEnded) this.readLastLine();
  }

  private endInput(): void {
    if (this.inputEnded || this.closed) return;
    this.inputEnded = true;
    this.channel.onStdin = undefined;
    // Before the server starts, bytes that wait are read by start(), then the last line.
    if (!this.waiting?.length) this.readLastLine();
  }

  private readLastLine(): void {
    const last = this.reader.end();
    const message = last && this.take(last);
    if (message) this.deliver(message);
    this.allRead = true;
    for (const id of this.asked) this.unanswerable(id);
    this.asked.clear();
    this.closeIfDone();
  }

  // A client whose stdin has ended cannot answer a question (elicitation, sampling, roots): the
  // question fails at once, so the call that asked it ends now, not at its timeout.
  private unanswerable(id: string | number): void {
    this.failQuestion(id, CONNECTION_CLOSED, 'the client closed stdin: it cannot answer');
  }

  // The server hears an error answer to its question, as if the client had sent it.
  private failQuestion(id: string | number, code: number, message: string): void {
    queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage));
  }

  // After stdin's end, once nothing read waits for the server nor for its answer.
  private closeIfDone(): void {
    if (!this.allRead || this.closed || this.backlog > 0 || this.owed.size > 0) return;
    void this.close().then(() => this.channel.endStdout());
  }

  // A line's bookkeeping (what it asks is owed, what it answers is no longer asked) and its
  // message, or null: nothing for the server (an error answered here, an empty line).
  private take(line: ReturnType<LineReader['push']>[number]): JSONRPCMessage | null {
    if (this.closed) return null;
    if (isOversized(line)) {
      const id = findJsonRpcId(line.head, line.tail);
      const limit = `over the limit of ${this.maxMessageBytes} bytes (--max-message-bytes)`;
      // The client's answer to our question fails that question; it is owed no answer itself.
      if (id !== null && this.asked.has(id) && looksLikeResponse(line.head)) {
        this.asked.delete(id);
        this.failQuestion(id, rpcCode(Code.message_too_large), `the client's answer of ${line.bytes} bytes is ${limit}`);
        return null;
      }
      this.reply(id, Code.message_too_large, `Invalid Request: a message of ${line.bytes} bytes is ${limit}`);
      return null;
    }
    const text = line.toString('utf8').replace(/\r$/, '');
    if (!text.trim()) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.reply(null, Code.bad_request, 'Parse error: the line is not valid JSON', -32700);
      return null;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = typeof value === 'object' && value !== null && 'id' in value ? ((value as { id: unknown }).id as Id) : null;
      this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, Code.bad_request, 'Invalid Request: not a JSON-RPC 2.0 message', -32600);
      return null;
    }
    if (owesAnswer(message)) this.owe(message.id);
    if (isJSONRPCRequest(message) && message.method === 'initialize') this.initializing = { id: message.id, line: new Uint8Array(line) };
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.asked.delete(message.id as string | number);
    // A cancelled request gets no answer (MCP): nothing is owed for it any more.
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') this.forget(message.params?.requestId);
    return message;
  }

  private owe(id: string | number): void {
    const count = this.owed.get(id) ?? 0;
    this.owed.set(id, count + 1);
    if (count === 0) this.owedChanged(id, true);
  }

  private forget(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const count = this.owed.get(id);
    if (count === undefined) return;
    if (count > 1) return void this.owed.set(id, count - 1);
    this.owed.delete(id);
    this.owedChanged(id, false);
    this.closeIfDone();
  }

  // If the hub dies, the main thread (which never parses stdio) fails the ids it was told are owed:
  // it hears the changes, once per turn (a full list per change would cost the square of them).
  private owedChanged(id: string | number, owed: boolean): void {
    const [into, from] = owed ? [this.owedAdded, this.owedRemoved] : [this.owedRemoved, this.owedAdded];
    if (!from.delete(id)) into.add(id);
    if (!this.owedTold) return;
    this.owedTold = false;
    queueMicrotask(() => this.tellOwed());
  }

  private tellOwed(): void {
    this.owedTold = true;
    if (!this.owedAdded.size && !this.owedRemoved.size) return;
    this.channel.stdioOwed([...this.owedAdded], [...this.owedRemoved]);
    this.owedAdded = new Set();
    this.owedRemoved = new Set();
  }

  private deliver(message: JSONRPCMessage): void {
    if (this.backlog === 0) {
      const seen = this.intercept ? this.intercept(message) : message;
      if (!(seen instanceof Promise)) return void this.onmessage?.(seen);
      return this.later(message, seen);
    }
    this.later(message, this.inbound.then(() => (this.intercept ? this.intercept(message) : message)));
  }

  // An intercept that fails lets the message through as it came.
  private later(message: JSONRPCMessage, seen: Promise<JSONRPCMessage>): void {
    this.backlog++;
    this.inbound = seen
      .catch(() => message)
      .then((delivered) => {
        if (!this.closed) this.onmessage?.(delivered);
      })
      .finally(() => {
        this.backlog--;
        this.closeIfDone();
      });
  }

  // Serving never started (the service stops during the initial load): the requests that waited
  // are owed an answer all the same, the shutdown's error.
  private readWaitingForIds(): void {
    const lines = (this.waiting ?? []).flatMap((chunk) => this.reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    this.waiting = null;
    const last = this.inputEnded ? this.reader.end() : null;
    if (last) lines.push(last);
    for (const line of lines) {
      if (isOversized(line)) continue;
      try {
        const message = parseJSONRPCMessage(JSON.parse(line.toString('utf8')));
        if (owesAnswer(message)) this.owe(message.id);
      } catch {
        // Not JSON-RPC: it asked for nothing.
      }
    }
  }

  // The transport's own answer to a line it could not take: not an answer to anything owed.
  private reply(id: Id, code: ErrorCode, message: string, rpc = rpcCode(code)): void {
    if (!this.closed) void this.channel.writeStdout(Buffer.from(jsonLine({ jsonrpc: '2.0', id, error: { code: rpc, message, data: { code } } }))).catch(() => undefined);
  }

  async send(sent: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('Not connected');
    // What the SDK's stdio router answers by itself (a listen it refuses) names its catalogue code too.
    const message = withErrorCode(sent);
    const answer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    if (answer && this.replayId !== null && message.id === this.replayId) {
      this.replayId = null;
      // The session is whole again, as the client left it: it said it was initialized back then.
      if (isJSONRPCResultResponse(message)) this.deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return;
    }
    // An initialize the server took (not one refused on a connection of the other era) is the one a next hub hears.
    const initializing = this.initializing;
    if (answer && initializing !== null && initializing.id === message.id) {
      if (isJSONRPCResultResponse(message)) this.channel.stdioInitialize(initializing.line);
      this.initializing = null;
    }
    if (isJSONRPCRequest(message)) {
      if (this.inputEnded) return this.unanswerable(message.id);
      this.asked.add(message.id);
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      // The server gave up on its question (its timeout): it waits for no answer any more.
      this.asked.delete(message.params?.requestId as string | number);
    }
    // Posted at once, whatever the window: the answer is on its way, no longer owed (a hub that dies
    // while this waits for the window must not have the main thread fail it as well).
    const written = this.channel.writeStdout(Buffer.from(jsonLine(message)));
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.forget(message.id);
    await written;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Lines that arrived before serving started are read for their requests' ids.
    if (this.waiting) this.readWaitingForIds();
    // Requests still owed when the service stops (a signal, the drain's deadline) are told so.
    const error = { code: rpcCode(Code.service_stopping), message: Messages.serviceStopping, data: { code: Code.service_stopping } };
    for (const id of [...this.owed.keys()]) {
      void this.channel.writeStdout(Buffer.from(jsonLine({ jsonrpc: '2.0', id, error }))).catch(() => undefined);
      this.owed.delete(id);
      this.owedChanged(id, false);
    }
    this.tellOwed();
    this.closed = true;
    this.channel.onStdin = undefined;
    this.onclose?.();
  }
}
