// One answer's way out of the hub: its head and the bytes the app produced in one turn of the
// event loop leave as one `answer` message, so a tool call's head, SSE event and end cost the
// main thread one message and one socket write. A stream's head is not held back: the client
// must see it open.
import type { PumpToMain, ResponseHead } from '../shared/messages/pump.ts';

/**
 * The answer to a POST usually follows within milliseconds (a tool call's SSE event): its head
 * waits that long for the first bytes. A long call's head still leaves after this, so a client
 * sees its stream open (and no HTTP headers timeout is reached).
 */
export const HEAD_HOLD_MS = 20;
/** Methods whose answer head waits for its first bytes (up to HEAD_HOLD_MS). */
export const HOLDS_HEAD = new Set(['POST']);

type Post = (message: PumpToMain, transfer?: ArrayBuffer[]) => void;

export class Outbox {
  private pendingHead: ResponseHead | undefined;
  private chunks: Uint8Array[] = [];
  private headTimer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private done = false;

  constructor(
    private readonly id: number,
    private readonly post: Post,
    private readonly aborted: AbortSignal,
  ) {}

  head(head: ResponseHead, hold: boolean): void {
    this.pendingHead = head;
    if (hold) this.headTimer = setTimeout(() => this.flush(), HEAD_HOLD_MS);
    else this.soon();
  }

  /** Bytes the app produced; they leave at the end of this turn, with whatever follows in it. */
  chunk(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.soon();
  }

  /** The answer is complete: everything pending leaves now, in one message. */
  end(): void {
    this.send(true);
  }

  /** Sends what is pending (before a message that must follow it). */
  flush(): void {
    if (this.pendingHead || this.chunks.length) this.send(false);
  }

  /** Nothing more will be sent (the answer ended, broke or was aborted). */
  close(): void {
    this.done = true;
    this.cancelTimers();
  }

  private soon(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = null;
      this.flush();
    });
  }

  private send(end: boolean): void {
    this.cancelTimers();
    if (this.done || this.aborted.aborted) return;
    const { chunks } = this;
    const message: PumpToMain = { type: 'answer', id: this.id, chunks, end, ...(this.pendingHead ? { head: this.pendingHead } : {}) };
    this.pendingHead = undefined;
    this.chunks = [];
    if (end) this.done = true;
    this.post(message, chunks.map((c) => c.buffer as ArrayBuffer));
  }

  private cancelTimers(): void {
    if (this.headTimer) clearTimeout(this.headTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.headTimer = null;
    this.immediate = null;
  }
}
