// A fake clock, fake interval timers and a fixed-window limiter driven by that clock, for the
// stderr capture's tests.
import type { StderrLimiter, StderrTimers } from '../../../lib/backend/stderr-capture.ts';

export class FakeClock implements StderrTimers {
  time = 0;
  private intervals = new Map<number, { callback: () => void; ms: number; due: number }>();
  private nextId = 1;

  now = (): number => this.time;

  setInterval(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.intervals.set(id, { callback, ms, due: this.time + ms });
    return id;
  }

  clearInterval(handle: unknown): void {
    this.intervals.delete(handle as number);
  }

  get activeIntervals(): number {
    return this.intervals.size;
  }

  /** Moves time forward, firing every interval that falls due, in time order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: { callback: () => void; ms: number; due: number } | undefined;
      for (const timer of this.intervals.values()) if (timer.due <= end && (!next || timer.due < next.due)) next = timer;
      if (!next) break;
      this.time = next.due;
      next.due += next.ms;
      next.callback();
    }
    this.time = end;
  }
}

/** Like RateLimiterMemory (fixed window from the first consume), on the fake clock. */
export class FakeLimiter implements StderrLimiter {
  calls = 0;
  private windowStart = -Infinity;
  private used = 0;
  /** While set, every consume waits for it before answering. */
  gate: Promise<void> | null = null;

  constructor(
    private readonly clock: FakeClock,
    private readonly points = 20,
    private readonly durationMs = 10_000,
  ) {}

  async consume(_key: string): Promise<{ msBeforeNext: number }> {
    this.calls++;
    if (this.gate) await this.gate;
    const now = this.clock.time;
    if (now >= this.windowStart + this.durationMs) {
      this.windowStart = now;
      this.used = 0;
    }
    this.used++;
    const msBeforeNext = this.windowStart + this.durationMs - now;
    if (this.used > this.points) throw { msBeforeNext };
    return { msBeforeNext };
  }
}
