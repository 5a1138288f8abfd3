// The legacy (2024-11-05) SSE server transport the v2 SDK no longer has: GET /sse opens the event
// stream and announces `event: endpoint` → POST /messages?sessionId=<id> carries client messages.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { toWebRequest } from '@modelcontextprotocol/node';

const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export class LegacySseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private _closed = false;
  private _keepAlive?: NodeJS.Timeout;

  /**
   * @param postPath path the client must POST to (e.g. '/messages'); `sessionId` is appended.
   * @param res the GET /sse response kept open as the event stream.
   * @param initialRequest web Request of the GET /sse (query params live here, e.g. ?tags=a,b)
   */
  constructor(
    private readonly postPath: string,
    private readonly res: ServerResponse,
    readonly initialRequest?: Request,
    private readonly keepAliveMs = 15_000
  ) {}

  async start(): Promise<void> {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no'
    });
    this.res.write(`event: endpoint\ndata: ${this.postPath}?sessionId=${encodeURIComponent(this.sessionId)}\n\n`);
    this.res.on('close', () => this._finish());
    if (this.keepAliveMs > 0) {
      this._keepAlive = setInterval(() => this.res.write(': keepalive\n\n'), this.keepAliveMs);
      this._keepAlive.unref();
    }
  }

  /** Route POST /messages?sessionId=... here. Answers 202 and hands the message to the server. */
  async handlePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this._closed) {
      res.writeHead(404).end('Session closed');
      return;
    }
    const ct = String(req.headers['content-type'] ?? '');
    if (!ct.toLowerCase().startsWith('application/json')) {
      res.writeHead(415).end('Content-Type must be application/json');
      return;
    }
    let request: Request;
    let message: JSONRPCMessage;
    try {
      request = await toWebRequest(req, undefined, { maxRequestBodySize: MAX_MESSAGE_BYTES });
      message = parseJSONRPCMessage(await request.clone().json());
    } catch (error) {
      res.writeHead(400).end(`Invalid message: ${String(error)}`);
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    res.writeHead(202).end('Accepted');
    // `request` surfaces as ctx.http.req in handlers
    this.onmessage?.(message, { request });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this._closed) throw new Error('Not connected');
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (!this._closed) this.res.end();
    this._finish();
  }

  private _finish(): void {
    if (this._closed) return;
    this._closed = true;
    if (this._keepAlive) clearInterval(this._keepAlive);
    this.onclose?.();
  }
}
