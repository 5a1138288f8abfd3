// "Tell the first, count the rest": the first event after a quiet window is told in full; the
// ones that follow within the window are counted and summed up when it ends, and while they keep
// coming each window ends with one summary. A flood costs one log line per window. The clock is
// injectable; the timer is the only effect.

export const REPORT_WINDOW_MS = 10_000;

export class WindowedCounter {
  private windowEndsAt = -Infinity;
  private counted = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly summarize: (count: number) => void,
    private readonly windowMs = REPORT_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** 'full': tell this one; 'counted': it goes into the window's summary. */
  take(): 'full' | 'counted' {
    const now = this.now();
    if (now >= this.windowEndsAt && this.timer === null) {
      this.windowEndsAt = now + this.windowMs;
      return 'full';
    }
    this.counted++;
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), Math.max(0, this.windowEndsAt - now));
      this.timer.unref();
    }
    return 'counted';
  }

  /** Sums up what was counted (at the window's end, or when the source goes); the next window starts now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.counted === 0) return;
    const count = this.counted;
    this.counted = 0;
    this.windowEndsAt = this.now() + this.windowMs;
    this.summarize(count);
  }
}
