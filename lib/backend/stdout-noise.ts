// A backend that prints to its stdout (a log line, a banner) breaks nothing, since such lines are
// skipped, but its operator should know: the first line is logged with an excerpt, later ones are
// counted and summed up at most once per window, so a chatty backend costs a line per window.
// Pure apart from the clock and the sink it is given.

export const NOISE_WINDOW_MS = 10_000;
const EXCERPT_CHARS = 200;

export type NoiseLine = { fields: { stream: 'stdout'; ignored?: number; excerpt?: string }; message: string };

// Space, tab, CR: a blank line is not worth a word.
const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d;

export class StdoutNoise {
  private told = false;
  private unreported = 0;
  private windowEndsAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sink: (line: NoiseLine) => void,
    /** Masks secrets in an excerpt before it is logged. */
    private readonly mask: (text: string) => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A line that is not JSON: its bytes without the newline. */
  seen(line: Buffer): void {
    if (line.every(isBlank)) return;
    if (!this.told) {
      this.told = true;
      this.windowEndsAt = this.now() + NOISE_WINDOW_MS;
      const text = line.subarray(0, EXCERPT_CHARS * 4).toString('utf8').slice(0, EXCERPT_CHARS);
      this.sink({
        fields: { stream: 'stdout', excerpt: this.mask(text) },
        message: 'the backend wrote a line to stdout that is not a JSON-RPC message: ignored (stdout carries MCP messages only; a server should log to stderr). Later ones are counted',
      });
      return;
    }
    this.unreported++;
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), Math.max(0, this.windowEndsAt - this.now()));
      this.timer.unref();
    }
  }

  /** Sums up the lines not reported yet (at the end of a window, and when the child goes). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.unreported === 0) return;
    const count = this.unreported;
    this.unreported = 0;
    this.windowEndsAt = this.now() + NOISE_WINDOW_MS;
    this.sink({ fields: { stream: 'stdout', ignored: count }, message: `${count} more line(s) on stdout that are not JSON-RPC messages were ignored` });
  }
}
