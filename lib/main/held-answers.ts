// What the main thread holds of answers their clients are not reading: a forwarded answer is
// written to its socket whole (the hub sends a one-piece answer at once, whatever its size), and
// node keeps what the socket has not taken. 30 clients that asked for 12 MB and never read held
// 280 MB here with nothing cut (found by an outside check). Every second while any answer waits,
// the total is looked at; over the cap, the answers that hold the most are cut until it is under.
import type { ServerResponse } from 'node:http';

/** The cap with the default --max-message-bytes (16 MiB): four answers of twice that. */
export const DEFAULT_MAX_HELD_ANSWERS = 128 * 1024 * 1024;

/** How often the held answers are looked at while any waits. */
export const HELD_CHECK_MS = 1_000;

export type HeldCut = { bytes: number; held: number };

/** Which answers to cut: the largest first, until the total is at most `cap`. Pure. */
export function answersToCut(pending: readonly number[], cap: number): number[] {
  let total = pending.reduce((sum, bytes) => sum + bytes, 0);
  const cut: number[] = [];
  const order = pending.map((bytes, i) => [bytes, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [bytes, i] of order) {
    if (total <= cap) break;
    cut.push(i);
    total -= bytes;
  }
  return cut;
}

export class HeldAnswers {
  private readonly held = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly cap: number,
    private readonly onCut: (cut: HeldCut) => void,
    private readonly checkMs = HELD_CHECK_MS,
  ) {}

  /** An answer was written to `res`: watched until its socket has taken it all, or it closes. */
  wrote(res: ServerResponse): void {
    if (res.writableLength === 0 || this.held.has(res)) return;
    this.held.add(res);
    const forget = () => this.held.delete(res);
    res.once('finish', forget);
    res.once('close', forget);
    this.timer ??= setInterval(() => this.check(), this.checkMs).unref();
  }

  /** Bytes held now, all answers together. */
  get bytes(): number {
    let total = 0;
    for (const res of this.held) total += res.writableLength;
    return total;
  }

  private check(): void {
    const answers = [...this.held].filter((res) => res.writableLength > 0 && !res.destroyed);
    if (answers.length === 0) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    const pending = answers.map((res) => res.writableLength);
    const held = pending.reduce((sum, bytes) => sum + bytes, 0);
    for (const i of answersToCut(pending, this.cap)) {
      this.onCut({ bytes: pending[i]!, held });
      this.held.delete(answers[i]!);
      answers[i]!.destroy();
    }
  }
}
