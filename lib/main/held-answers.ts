// What the main thread holds of answers their clients are not reading: a forwarded answer is
// written to its socket whole (the hub sends a one-piece answer at once, whatever its size), and
// node keeps what the socket has not taken. 30 clients that asked for 12 MB and never read held
// 280 MB here with nothing cut (found by an outside check). Every second while any answer waits,
// the total is looked at; over the cap, the answers that made no progress for STALLED_LOOKS looks
// are cut, the largest first, until it is under. A client that reads is not cut for it.
import type { ServerResponse } from 'node:http';

/** The cap with the default --max-message-bytes (16 MiB): four answers of twice that. */
export const DEFAULT_MAX_HELD_ANSWERS = 128 * 1024 * 1024;

/** How often the held answers are looked at while any waits. */
export const HELD_CHECK_MS = 1_000;
/**
 * Looks in a row without progress before an answer may be cut: libuv's count moves only when the
 * kernel's buffer has room again (about every 1.4 MB taken), so a client reading 1 MB/s can show
 * none for a look or two.
 */
export const STALLED_LOOKS = 5;

export type HeldCut = { bytes: number; held: number };

/**
 * Which answers to cut: of those that made no progress since the last look (`stalled`), the
 * largest first, until the total is at most `cap`. An answer its client is reading is never cut,
 * even if the total stays over. Pure.
 */
export function answersToCut(pending: readonly number[], stalled: readonly boolean[], cap: number): number[] {
  let total = pending.reduce((sum, bytes) => sum + bytes, 0);
  const cut: number[] = [];
  const order = pending.map((bytes, i) => [bytes, i] as const).filter(([, i]) => stalled[i]).sort((a, b) => b[0] - a[0]);
  for (const [bytes, i] of order) {
    if (total <= cap) break;
    cut.push(i);
    total -= bytes;
  }
  return cut;
}

/**
 * Where an answer stands: `pending`, what node holds of it (a write in flight counts whole until
 * it is done, so one big answer shows no progress there); `queued`, what libuv still has to hand
 * the kernel of the write in flight, which falls as the client reads (the handle's
 * writeQueueSize; Infinity where there is none).
 */
export type Progress = { pending: number; queued: number };

function progressOf(res: ServerResponse): Progress {
  const queued = (res.socket as unknown as { _handle?: { writeQueueSize?: unknown } } | null)?._handle?.writeQueueSize;
  return { pending: res.writableLength, queued: typeof queued === 'number' ? queued : Infinity };
}

/** No byte of it taken since the last look. Pure. */
export function isStalled(before: Progress, now: Progress): boolean {
  return now.pending >= before.pending && now.queued >= before.queued;
}

export class HeldAnswers {
  // Each answer, where it stood at the last look, and how many looks in a row it has not moved.
  private readonly held = new Map<ServerResponse, { last: Progress; stalledLooks: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly cap: number,
    private readonly onCut: (cut: HeldCut) => void,
    private readonly checkMs = HELD_CHECK_MS,
    private readonly stalledLooks = STALLED_LOOKS,
  ) {}

  /** An answer was written to `res`: watched until its socket has taken it all, or it closes. */
  wrote(res: ServerResponse): void {
    if (res.writableLength === 0 || this.held.has(res)) return;
    this.held.set(res, { last: { pending: Infinity, queued: Infinity }, stalledLooks: 0 });
    const forget = () => this.held.delete(res);
    res.once('finish', forget);
    res.once('close', forget);
    this.timer ??= setInterval(() => this.check(), this.checkMs).unref();
  }

  /** Bytes held now, all answers together. */
  get bytes(): number {
    let total = 0;
    for (const res of this.held.keys()) total += res.writableLength;
    return total;
  }

  private check(): void {
    const answers = [...this.held.keys()].filter((res) => res.writableLength > 0 && !res.destroyed);
    if (answers.length === 0) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    const pending: number[] = [];
    const stalled: boolean[] = [];
    for (const res of answers) {
      const entry = this.held.get(res)!;
      const now = progressOf(res);
      entry.stalledLooks = isStalled(entry.last, now) ? entry.stalledLooks + 1 : 0;
      entry.last = now;
      pending.push(now.pending);
      stalled.push(entry.stalledLooks >= this.stalledLooks);
    }
    const held = pending.reduce((sum, bytes) => sum + bytes, 0);
    for (const i of answersToCut(pending, stalled, this.cap)) {
      this.onCut({ bytes: pending[i]!, held });
      this.held.delete(answers[i]!);
      answers[i]!.destroy();
    }
  }
}
