// One answer's way out of the hub: what the app produced in one turn of the event loop leaves
// as one `answer` message, so a tool call's SSE event and the end of its stream cost the main
// thread one message and one socket write. The head leaves at once by default: the client takes
// it (fetch resolves, the SSE reader starts) while the call runs; held, that work moved onto the
// call's critical path (+0.4 ms p50 per call measured with `benchmarks/overhead-only.ts`). When
// the hub answers several calls at once, the caller holds it for up to `holdMs` to leave with the
// first bytes: one message, one wake-up of the main thread, one socket write and one read by the
// client instead of two each, CPU that a busy machine gives to the calls themselves. The failure
// frame rides with the head: a hub that dies during the hold leaves the main thread's 503, as
// before the head.
import type { PumpToMain, ResponseHead } from '../shared/messages/pump.ts';

type Post = (message: PumpToMain, transfer?: ArrayBuffer[]) => void;

export class Outbox {
  private pendingHead: ResponseHead | undefined;
  private chunks: Uint8Array[] = [];
  private immediate: NodeJS.Immediate | null = null;
  private holding: NodeJS.Timeout | null = null;
  private done = false;

  constructor(
    private readonly id: number,
    private readonly post: Post,
    private readonly aborted: AbortSignal,
  ) {}

  /** The head leaves at the end of this turn (with any bytes produced in it), or with the first bytes within `holdMs`. */
  head(head: ResponseHead, holdMs = 0): void {
    this.pendingHead = head;
    if (holdMs <= 0) return this.soon();
    this.holding = setTimeout(() => {
      this.holding = null;
      this.flush();
    }, holdMs);
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
    this.cancelImmediate();
    this.cancelHold();
  }

  private soon(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = null;
      this.flush();
    });
  }

  private send(end: boolean): void {
    this.cancelImmediate();
    this.cancelHold();
    if (this.done || this.aborted.aborted) return;
    const { chunks } = this;
    const message: PumpToMain = { type: 'answer', id: this.id, chunks, end, ...(this.pendingHead ? { head: this.pendingHead } : {}) };
    this.pendingHead = undefined;
    this.chunks = [];
    if (end) this.done = true;
    this.post(message, chunks.map((c) => c.buffer as ArrayBuffer));
  }

  private cancelHold(): void {
    if (this.holding) clearTimeout(this.holding);
    this.holding = null;
  }

  private cancelImmediate(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = null;
  }
}
