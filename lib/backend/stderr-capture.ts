// What one backend's stderr may put in the service log (decisions §7): by default at most 20
// distinct lines per 10 s window, identical consecutive lines folded into `repeated N times`
// summaries (at most every 5 s; a run whose first line was dropped is logged by its first copy
// that the quota admits, in a later window), dropped lines summarized as `suppressed N lines`, and
// backpressure to that child's pipe only when the capture's own queue exceeds 1 MiB. The limits
// are the backend's `stderrLimits` (lib/shared/stderr-limits.ts) and can change while it runs.
//
// Cost per line in a flood: one string comparison with the previous line and, while the quota is
// exhausted, one clock read and a counter increment; once nothing is queued, the splitter counts
// a read's lines without decoding them (`dropsEverything`), and it never decodes a line that
// repeats the previous one byte for byte (`countRepeats`). Dropped lines are never redacted, never
// matched by a regex and never reach the limiter; a line that has to wait for a limiter answer
// costs one queue entry.
// The memory limiter alone (types/rate-limiter-flexible-parts.d.ts): the package entry loads every store.
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import { redactCredentials } from '../shared/sanitize.ts';
import { DEFAULT_STDERR_LIMITS, type StderrLimits } from '../shared/stderr-limits.ts';

export const STDERR_LINES_PER_WINDOW = DEFAULT_STDERR_LIMITS.linesPerWindow;
export const STDERR_WINDOW_SECONDS = DEFAULT_STDERR_LIMITS.windowSeconds;
export const STDERR_SUMMARY_INTERVAL_MS = DEFAULT_STDERR_LIMITS.summaryIntervalSeconds * 1000;
/** Queue size above which the child's stderr is paused; it resumes below half of it. */
export const STDERR_QUEUE_HIGH_WATER = DEFAULT_STDERR_LIMITS.queueHighWaterBytes;
/** Distinct texts with repeat counts kept between two summaries; more count as suppressed. */
export const STDERR_MAX_REPEATED_TEXTS = 20;
/** Bytes counted per queued line on top of its length (the entry object itself). */
const ENTRY_OVERHEAD = 64;

/**
 * What the capture asks its owner to log. `text` has its credentials redacted; paths, URLs and
 * addresses stay: the log is the operator's (decisions §4).
 */
export type StderrEntry =
  | { kind: 'line'; text: string; truncated: boolean }
  | { kind: 'repeated'; text: string; count: number }
  | { kind: 'suppressed'; count: number };

/** The log message for an entry. */
export function formatStderrEntry(entry: StderrEntry): string {
  switch (entry.kind) {
    case 'line':
      return entry.text;
    case 'repeated':
      return `repeated ${entry.count} times: ${entry.text}`;
    case 'suppressed':
      return `suppressed ${entry.count} lines`;
  }
}

/**
 * The quota. `consume` resolves when the line may be logged and rejects with
 * `{msBeforeNext}` (rate-limiter-flexible's `RateLimiterRes`, or a plain object carrying it)
 * when the window's points are spent. `RateLimiterMemory` satisfies this as is.
 */
export interface StderrLimiter {
  consume(key: string): Promise<{ msBeforeNext: number }>;
}

/** A fresh quota of `linesPerWindow` points per `windowSeconds`. */
export function newStderrLimiter(limits: StderrLimits): StderrLimiter {
  return new RateLimiterMemory({ points: limits.linesPerWindow, duration: limits.windowSeconds });
}

export interface StderrTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The current child's stderr as the capture drives it. */
export type CapturedStream = {
  pause: () => void;
  resume: () => void;
  /** The splitter's line cut, when `lineBytes` changes. */
  setLineBytes: (bytes: number) => void;
};

export type StderrCaptureOptions = {
  /** Receives what is to be logged. Called from the capture's loop, its ticker or `setLimits`, never from `push`. */
  emit: (entry: StderrEntry) => void;
  /** Defaults to the spec's (DEFAULT_STDERR_LIMITS). */
  limits?: StderrLimits;
  /** Called once when the queue exceeds the high water: pause this child's stderr stream. */
  pause?: () => void;
  /** Called once when a paused queue drains below half of it (and on `close`): resume the stream. */
  resume?: () => void;
  /** A limiter failure that is not a quota rejection; the line is dropped (counted as suppressed). */
  onError?: (error: unknown) => void;
  /** Clock for the quota block; defaults to `Date.now`. */
  now?: () => number;
  /** Drives the summary ticker; defaults to the global timers (unref'd). */
  timers?: StderrTimers;
  /** Defaults to `newStderrLimiter(limits)`, owned by this capture. */
  limiter?: StderrLimiter;
  /** Limiter key; only matters for a limiter shared between captures. */
  key?: string;
  /** Masks the server's configured secrets in a line before it is redacted, folded or logged (`cut`: the line was cut at lineBytes). */
  mask?: (line: string, cut: boolean) => string;
};

type Entry = { line: string; truncated: boolean; repeats: number };

const defaultTimers: StderrTimers = {
  setInterval(callback, ms) {
    const handle = setInterval(callback, ms);
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

/** The delay a quota rejection asks for, or null when the rejection is some other failure. */
function quotaDelay(rejection: unknown): number | null {
  if (rejection instanceof RateLimiterRes) return rejection.msBeforeNext;
  if (typeof rejection !== 'object' || rejection === null || rejection instanceof Error) return null;
  const ms = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : null;
}

/**
 * Decides which already-split stderr lines of one backend are logged. One instance per backend
 * may outlive a child: call `flush()` when a child's stderr ends (the quota carries over to the
 * next child), and `close()` when the backend goes away.
 */
export class StderrCapture {
  private readonly emitEntry: (entry: StderrEntry) => void;
  private pauseStream: () => void;
  private resumeStream: () => void;
  private setLineBytes: (bytes: number) => void = () => undefined;
  private readonly onError: (error: unknown) => void;
  private readonly now: () => number;
  private readonly timers: StderrTimers;
  private currentLimits: StderrLimits;
  private limiter: StderrLimiter;
  private readonly key: string;
  private ticker: unknown;

  // Lines waiting for a decision, oldest at `head`. While a line waits, identical lines that
  // follow it only bump its `repeats`.
  private queue: (Entry | undefined)[] = [];
  private head = 0;
  private bytes = 0;
  private paused = false;
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  /** Lines are dropped without asking the limiter until this time. */
  private blockedUntil = -Infinity;

  // The last pushed line, to fold identical consecutive lines.
  private readonly mask: ((line: string, cut: boolean) => string) | null;
  private lastLine: string | null = null;
  private lastTruncated = false;

  // The run of the last decided line: whether its line was logged (its first copy, or the first
  // one the quota admitted later), its redacted text, and the repeats not yet summarized.
  private runLogged = false;
  private runText = '';
  private runCount = 0;

  // Summaries waiting for the next tick or flush.
  private readonly repeated = new Map<string, number>();
  private suppressed = 0;

  constructor(options: StderrCaptureOptions) {
    this.emitEntry = options.emit;
    this.pauseStream = options.pause ?? (() => undefined);
    this.resumeStream = options.resume ?? (() => undefined);
    this.onError = options.onError ?? (() => undefined);
    this.now = options.now ?? Date.now;
    this.timers = options.timers ?? defaultTimers;
    this.currentLimits = options.limits ?? { ...DEFAULT_STDERR_LIMITS };
    this.limiter = options.limiter ?? newStderrLimiter(this.currentLimits);
    this.key = options.key ?? 'stderr';
    this.mask = options.mask ?? null;
    this.ticker = this.startTicker();
  }

  /** Approximate memory held by lines waiting for a decision. */
  get queuedBytes(): number {
    return this.bytes;
  }

  get limits(): StderrLimits {
    return this.currentLimits;
  }

  /** Points backpressure and the line cut at the current child's stream (a restarted backend has a new one). */
  attach(stream: CapturedStream): void {
    this.pauseStream = stream.pause;
    this.resumeStream = stream.resume;
    this.setLineBytes = stream.setLineBytes;
    if (this.paused) stream.pause();
  }

  /**
   * Switches to new limits at once: the summaries pending so far are emitted (they were counted
   * under the old limits), a new quota window starts with `limiter`, the ticker takes the new
   * interval, the stream the new line cut and high water. Queued lines stay queued and are decided
   * under the new quota.
   */
  setLimits(limits: StderrLimits, limiter: StderrLimiter = newStderrLimiter(limits)): void {
    if (this.closed) return;
    this.endRun();
    this.emitSummaries();
    this.currentLimits = limits;
    this.limiter = limiter;
    this.blockedUntil = -Infinity;
    this.timers.clearInterval(this.ticker);
    this.ticker = this.startTicker();
    this.setLineBytes(limits.lineBytes);
    if (!this.paused && this.bytes > limits.queueHighWaterBytes) this.pause();
    else if (this.paused && this.bytes < limits.queueHighWaterBytes / 2) this.resume();
  }

  /** One line from the splitter. Synchronous and cheap; empty lines are ignored. */
  push(line: string, truncated: boolean): void {
    if (this.closed || line.length === 0) return;
    if (line === this.lastLine && truncated === this.lastTruncated) return this.countRepeats(1);
    this.lastLine = line;
    this.lastTruncated = truncated;
    if (this.head === this.queue.length && this.now() < this.blockedUntil) {
      // Over quota with nothing queued ahead: drop it here, without a queue entry.
      this.endRun();
      this.runLogged = false;
      this.suppressed++;
      return;
    }
    this.enqueue(line, truncated, 0);
  }

  private enqueue(line: string, truncated: boolean, repeats: number): void {
    this.queue.push({ line, truncated, repeats });
    this.bytes += line.length + ENTRY_OVERHEAD;
    if (!this.paused && this.bytes > this.currentLimits.queueHighWaterBytes) this.pause();
    if (!this.running) {
      this.running = true;
      void this.drain();
    }
  }

  /**
   * True while every line pushed would only be counted as suppressed: over quota with nothing
   * queued and no logged run going on (a repeat and a new line then count alike). The splitter
   * then counts a read's lines without decoding them (`countDropped`); the quota's reopening is
   * then seen at the read's last line instead of at the next line.
   */
  dropsEverything(): boolean {
    return !this.closed && !this.runLogged && this.head === this.queue.length && this.now() < this.blockedUntil;
  }

  /** `lines` non-empty lines pushed while `dropsEverything()`, counted without their text. */
  countDropped(lines: number): void {
    if (!this.closed) this.suppressed += lines;
  }

  /** `lines` more copies of the last line pushed, counted as `push` counts a repeat (the splitter's, undecoded). */
  countRepeats(lines: number): void {
    if (this.closed) return;
    // The queue's tail, if any, is the first line of this run.
    const tail = this.head < this.queue.length ? this.queue[this.queue.length - 1] : undefined;
    if (tail) tail.repeats += lines;
    else if (this.runLogged) this.runCount += lines;
    else if (this.lastLine === null || this.now() < this.blockedUntil) this.suppressed += lines;
    // The run's first line was dropped and the quota may have a line again (a new window, new
    // limits): its next copy asks for one, as a new line would, and the rest fold onto it.
    else this.enqueue(this.lastLine, this.lastTruncated, lines - 1);
  }

  /** Resolves once every queued line has been decided. */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * The child's stderr ended: decides the queued lines, then emits the pending summaries. The
   * next line pushed starts a new run even if it equals the last one.
   */
  async flush(): Promise<void> {
    await this.idle();
    if (this.closed) return;
    this.endRun();
    this.runLogged = false;
    this.lastLine = null;
    this.emitSummaries();
  }

  /** Stops the ticker and drops whatever is queued or pending; later lines are ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timers.clearInterval(this.ticker);
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
    this.repeated.clear();
    this.suppressed = 0;
    if (this.paused) this.resume();
  }

  private startTicker(): unknown {
    return this.timers.setInterval(() => this.tick(), this.currentLimits.summaryIntervalSeconds * 1000);
  }

  private pause(): void {
    this.paused = true;
    this.pauseStream();
  }

  private resume(): void {
    this.paused = false;
    this.resumeStream();
  }

  // The single consumer of the queue, so lines are decided and logged in order.
  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.head < this.queue.length) {
        const entry = this.queue[this.head]!;
        // The entry stays queued while the limiter answers, so repeats keep landing on it.
        const allowed = this.now() < this.blockedUntil ? false : await this.admit();
        if (this.closed) break;
        this.dequeue(entry);
        this.endRun();
        if (allowed) {
          const text = redactCredentials(this.mask ? this.mask(entry.line, entry.truncated) : entry.line, this.currentLimits.lineBytes);
          this.runLogged = true;
          this.runText = text;
          this.runCount = entry.repeats;
          if (text) this.emitEntry({ kind: 'line', text, truncated: entry.truncated });
        } else {
          this.runLogged = false;
          this.suppressed += 1 + entry.repeats;
        }
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async admit(): Promise<boolean> {
    for (;;) {
      const limiter = this.limiter;
      try {
        await limiter.consume(this.key);
        return true;
      } catch (rejection) {
        // The limits changed while the old quota answered: the new quota decides.
        if (limiter !== this.limiter) continue;
        const delay = quotaDelay(rejection);
        if (delay === null) {
          this.onError(rejection);
          return false;
        }
        this.blockedUntil = this.now() + delay;
        return false;
      }
    }
  }

  private dequeue(entry: Entry): void {
    this.queue[this.head++] = undefined;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.bytes -= entry.line.length + ENTRY_OVERHEAD;
    if (this.paused && this.bytes < this.currentLimits.queueHighWaterBytes / 2) this.resume();
  }

  // Moves the repeats of the current logged run into the pending summaries.
  private endRun(): void {
    if (this.runLogged && this.runCount > 0) {
      if (this.runText) this.addRepeated(this.runText, this.runCount);
      this.runCount = 0;
    }
  }

  private addRepeated(text: string, count: number): void {
    const known = this.repeated.get(text);
    if (known !== undefined) this.repeated.set(text, known + count);
    else if (this.repeated.size < STDERR_MAX_REPEATED_TEXTS) this.repeated.set(text, count);
    else this.suppressed += count;
  }

  private tick(): void {
    if (this.closed) return;
    // A run still going on reports what it has so far and keeps counting.
    this.endRun();
    this.emitSummaries();
  }

  private emitSummaries(): void {
    for (const [text, count] of this.repeated) this.emitEntry({ kind: 'repeated', text, count });
    this.repeated.clear();
    if (this.suppressed > 0) {
      const count = this.suppressed;
      this.suppressed = 0;
      this.emitEntry({ kind: 'suppressed', count });
    }
  }
}
