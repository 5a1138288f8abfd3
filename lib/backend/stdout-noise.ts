// A backend that prints to its stdout what is not a JSON-RPC message (a banner, a log line, JSON
// logs) breaks nothing, since such lines are skipped, but its operator should know: one line is
// logged with an excerpt, the ones after it within 10 s are counted into one summary per window.

import { WindowedCounter } from './windowed-counter.ts';

const EXCERPT_CHARS = 200;
// Bytes decoded for an excerpt: enough for 200 characters of UTF-8, and for a secret that starts
// within them to be masked whole before the cut.
const EXCERPT_BYTES = 2_048;

export type NoiseLine = { fields: { stream: 'stdout'; ignored?: number; excerpt?: string }; message: string };

// Space, tab, CR: a blank line is not worth a word.
const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d;

/** At most `max` characters, never half of a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export class StdoutNoise {
  private readonly counter: WindowedCounter;

  constructor(
    private readonly sink: (line: NoiseLine) => void,
    /** Masks secrets in the decoded text; `cut`: the text is a line's start, a secret may end past it. */
    private readonly mask: (text: string, cut: boolean) => string,
    now?: () => number,
  ) {
    this.counter = new WindowedCounter(
      (count) => this.sink({ fields: { stream: 'stdout', ignored: count }, message: `${count} more line(s) on stdout that are not JSON-RPC messages were ignored` }),
      undefined,
      now,
    );
  }

  /** A line that is not a JSON-RPC message: its bytes without the newline. */
  seen(line: Buffer): void {
    if (line.every(isBlank)) return;
    if (this.counter.take() === 'counted') return;
    const text = this.mask(line.subarray(0, EXCERPT_BYTES).toString('utf8'), line.length > EXCERPT_BYTES);
    this.sink({
      fields: { stream: 'stdout', excerpt: cutAt(text, EXCERPT_CHARS) },
      message: 'the backend wrote a line to stdout that is not a JSON-RPC message: ignored (stdout carries MCP messages only; a server should log to stderr). The next ones within 10 s are counted',
    });
  }

  flush(): void {
    this.counter.flush();
  }
}
