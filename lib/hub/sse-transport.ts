// The legacy (2024-11-05) SSE server transport the v2 SDK no longer has, on web streams: GET /sse
// opens the event stream and announces `event: endpoint` → POST /messages?sessionId=<id> carries
// client messages. A slow reader is waited for (back-pressure); one that falls more than
// `maxBufferedBytes` behind has its session closed.
import { randomUUID } from 'node:crypto';
import { isJSONRPCRequest, parseJSONRPCMessage } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { Code, httpStatus, jsonRpcErrorBody, rpcCode } from '../shared/errors.ts';
import { setFailureIds } from './failure-frame.ts';
import { markPaced } from './paced-body.ts';
import { bodyText } from './whole-body.ts';

export const SSE_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const KEEP_ALIVE_MS = 15_000;
// The stream asks for more once less than this is queued: the point where a send waits.
const HIGH_WATER_BYTES = 64 * 1024;

export type SseOptions = {
  /** Path the client must POST to (e.g. '/messages'); `sessionId` is appended. */
  postPath: string;
  /** The GET /sse request (its query carries ?tags=...). */
  initialRequest: Request;
  /** Prefix of the session id (the hub index), so the main thread routes the POSTs. */
  idPrefix: string;
  maxBufferedBytes?: number;
  keepAliveMs?: number;
  /** The reader fell too far behind and the session was closed. */
  onOverflow?: (bufferedBytes: number) => void;
};

const encoder = new TextEncoder();
// The protocol's own errors (unsupported media type, parse error, invalid request) keep their JSON-RPC numbers.
const jsonRpcError = (status: number, rpc: number, message: string) => Response.json(jsonRpcErrorBody(Code.bad_request, message, rpc), { status });

export class LegacySseServerTransport implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private closed = false;
  private keepAlive?: NodeJS.Timeout;
  private drained: (() => void)[] = [];
  readonly response: Response;
  // The requests this stream owes an answer: should the hub die, the main thread ends the stream
  // with an error for each. An answered one stays until its bytes have left (the pump reads the
  // stream on a later turn), so no answer is lost in between.
  private readonly owed = new Set<string | number>();
  private readonly answered = new Set<string | number>();
  private settling: NodeJS.Immediate | null = null;

  constructor(private readonly options: SseOptions) {
    this.sessionId = `${options.idPrefix}${randomUUID()}`;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.controller = controller),
        pull: () => {
          const waiting = this.drained;
          this.drained = [];
          for (const resume of waiting) resume();
        },
        cancel: () => this.finish(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_BYTES }),
    );
    markPaced(stream);
    this.response = new Response(stream, {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' },
    });
  }

  get initialRequest(): Request {
    return this.options.initialRequest;
  }

  /** Bytes queued for the client and not yet taken by it. */
  get bufferedBytes(): number {
    const desired = this.controller?.desiredSize ?? HIGH_WATER_BYTES;
    return Math.max(0, HIGH_WATER_BYTES - desired);
  }

  async start(): Promise<void> {
    this.write(`event: endpoint\ndata: ${this.options.postPath}?sessionId=${encodeURIComponent(this.sessionId)}\n\n`);
    const keepAliveMs = this.options.keepAliveMs ?? KEEP_ALIVE_MS;
    if (keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), keepAliveMs);
      this.keepAlive.unref();
    }
  }

  // Queues an event; false when the session had to be closed because the reader is too slow.
  private write(text: string): boolean {
    if (this.closed || !this.controller) return false;
    this.controller.enqueue(encoder.encode(text));
    const buffered = this.bufferedBytes;
    if (buffered > (this.options.maxBufferedBytes ?? SSE_MAX_BUFFERED_BYTES)) {
      this.options.onOverflow?.(buffered);
      // What is queued is dropped: the stream ends now, not after the backlog.
      this.controller.error(new Error('the SSE client fell too far behind'));
      this.finish();
      return false;
    }
    return true;
  }

  /** POST /messages?sessionId=...: answers 202 and hands the message to the server. */
  async handlePost(request: Request): Promise<Response> {
    if (this.closed) return jsonRpcError(httpStatus(Code.session_not_found), rpcCode(Code.session_not_found), 'Session closed');
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
      return jsonRpcError(415, -32600, 'Unsupported Media Type: Content-Type must be application/json');
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(await bodyText(request)));
    } catch (error) {
      const parse = error instanceof SyntaxError;
      return jsonRpcError(400, parse ? -32700 : -32600, parse ? 'Parse error: the body is not valid JSON' : 'Invalid Request: the body is not a JSON-RPC message');
    }
    if (isJSONRPCRequest(message)) {
      this.owed.add(message.id);
      this.owedChanged();
    }
    this.onmessage?.(message, { request });
    return new Response('Accepted', { status: 202 });
  }

  /** Waits while the client is behind (back-pressure); a session too far behind is closed. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('Not connected');
    if (!this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)) return;
    if ('id' in message && !('method' in message) && this.owed.delete(message.id as string | number)) this.settle(message.id as string | number);
    if ((this.controller?.desiredSize ?? 1) > 0) return;
    await new Promise<void>((resume) => this.drained.push(resume));
  }

  private owedChanged(): void {
    setFailureIds(this.response, [...this.owed, ...this.answered]);
  }

  private settle(id: string | number): void {
    this.answered.add(id);
    this.settling ??= setImmediate(() => {
      this.settling = null;
      this.answered.clear();
      this.owedChanged();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.controller?.close();
    } catch {
      /* already closed by the reader */
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    if (this.settling) clearImmediate(this.settling);
    const waiting = this.drained;
    this.drained = [];
    for (const resume of waiting) resume();
    this.onclose?.();
  }
}
