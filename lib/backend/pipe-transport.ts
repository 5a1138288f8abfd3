import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from '@modelcontextprotocol/client';

// An MCP transport over a child's stdin/stdout (newline-delimited JSON). It deliberately has no
// `pid`/`stderr` accessors: the SDK then probes in place and never treats a probe timeout as a
// legacy answer (service.md allows fallback only on a positive legacy answer).
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;
  private deferred = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
    this.input.once('close', this.onStreamClose);
    this.output.on('error', this.onStreamError);
  }

  private readonly onData = (chunk: Buffer) => {
    this.buffer.append(chunk);
    if (!this.deferred) this.drain();
  };

  // The SDK runs notification handlers a microtask later but settles responses at once, so a
  // progress notification followed by its response in one chunk would lose the progress. After
  // a notification, the rest of the chunk waits for the next turn of the event loop.
  private drain(): void {
    this.deferred = false;
    for (;;) {
      if (this.closed) return;
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
      if ('method' in message && !('id' in message)) {
        this.deferred = true;
        setImmediate(() => this.drain());
        return;
      }
    }
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);
  private readonly onStreamClose = () => void this.close();

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.output.destroyed) return reject(new Error('the backend process is no longer accepting input'));
      const ok = this.output.write(serializeMessage(message), (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.buffer.clear();
    this.onclose?.();
  }
}
