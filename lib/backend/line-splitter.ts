import { DEFAULT_STDERR_LIMITS } from '../shared/stderr-limits.ts';

export const MAX_LINE_BYTES = DEFAULT_STDERR_LIMITS.lineBytes;

/** Lets the splitter count lines instead of decoding them where its consumer would only count them. */
export type LineCounter = {
  /** Whether every line pushed now would only be counted (asked at the start of each read, and again after the line completing the pending bytes). */
  countsOnly: () => boolean;
  /** `lines` non-empty lines the splitter counted without decoding. */
  count: (lines: number) => void;
  /** `lines` more copies of the last line passed on, byte for byte, not decoded. */
  repeat: (lines: number) => void;
};

// Splits a byte stream into lines, cutting any line at `maxBytes` (decisions §7) so a child that
// never writes a newline cannot grow the buffer without bound.
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private truncated = false;
  // With a counter: the last non-empty line passed on, as bytes (cut, without its `\r`), and the
  // copies of it seen since, not yet reported.
  private previous: Buffer | null = null;
  private previousTruncated = false;
  private repeats = 0;

  constructor(
    private readonly onLine: (line: string, truncated: boolean) => void,
    /** Changing it applies from the next line; a line already longer is cut where it stands. */
    public maxBytes = MAX_LINE_BYTES,
    private readonly counter: LineCounter | null = null,
  ) {}

  push(chunk: Buffer): void {
    if (this.counter?.countsOnly()) return this.pushCounting(chunk);
    this.pushLines(chunk, 0);
  }

  private pushLines(chunk: Buffer, from: number): void {
    let start = from;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        break;
      }
      if (this.counter && this.pendingBytes === 0 && !this.truncated && this.repeatsPrevious(chunk, start, nl)) this.repeats++;
      else {
        this.append(chunk.subarray(start, nl));
        this.emit();
      }
      start = nl + 1;
    }
    this.reportRepeats();
  }

  // Whether chunk[start, nl) is the previous line again, as `emit` would pass it on (cut at
  // maxBytes, one trailing `\r` dropped): the same bytes decode to the same text. Lines whose
  // bytes differ but decode alike (invalid UTF-8) go the usual way, where the consumer compares texts.
  private repeatsPrevious(chunk: Buffer, start: number, nl: number): boolean {
    const previous = this.previous;
    if (!previous) return false;
    const end = this.textEnd(chunk, start, nl);
    return nl - start > this.maxBytes === this.previousTruncated && end - start === previous.length && chunk.compare(previous, 0, previous.length, start, end) === 0;
  }

  // Where the text `emit` would pass on for chunk[start, nl) ends: cut at maxBytes (before a
  // character the cut would split), then one trailing `\r` dropped. The text is empty when this is `start`.
  private textEnd(chunk: Buffer, start: number, nl: number): number {
    let cut = Math.min(nl, start + this.maxBytes);
    if (cut < nl) cut = start + completeUtf8Length(chunk.subarray(start, cut));
    return cut > start && chunk[cut - 1] === 13 ? cut - 1 : cut;
  }

  private reportRepeats(): void {
    if (this.repeats === 0) return;
    const lines = this.repeats;
    this.repeats = 0;
    this.counter!.repeat(lines);
  }

  // A flood over quota: the lines of a read are counted, not decoded (a string per line was most
  // of a flood's cost), except the one that completes the pending bytes and the read's last
  // non-empty one, which go the usual way: the latter is the backend's last stderr line and what
  // the next line is compared with. Lines that are empty once cut and stripped of a `\r` are
  // skipped, as `emit`'s consumer skips them. Whether to count is decided at the start of the
  // read and again after the completing line: a quota window that reopens within the rest of a
  // read (at most 64 KiB, well under a millisecond) is seen at the read's last line.
  private pushCounting(chunk: Buffer): void {
    let start = 0;
    if (this.pendingBytes > 0 || this.truncated) {
      const nl = chunk.indexOf(10);
      if (nl === -1) return this.append(chunk);
      this.append(chunk.subarray(0, nl));
      this.emit();
      start = nl + 1;
      if (!this.counter!.countsOnly()) return this.pushLines(chunk, start);
    }
    let counted = 0;
    let lastStart = -1;
    let lastEnd = -1;
    let nl: number;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      if (this.textEnd(chunk, start, nl) > start) {
        if (lastStart !== -1) counted++;
        lastStart = start;
        lastEnd = nl;
      }
      start = nl + 1;
    }
    if (counted > 0) this.counter!.count(counted);
    if (lastStart !== -1) {
      this.append(chunk.subarray(lastStart, lastEnd));
      this.emit();
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  flush(): void {
    if (this.pendingBytes > 0 || this.truncated) this.emit();
  }

  private append(part: Buffer): void {
    if (this.truncated) return;
    const room = Math.max(0, this.maxBytes - this.pendingBytes);
    if (part.length > room) {
      this.pending.push(part.subarray(0, room));
      this.pendingBytes += room;
      this.truncated = true;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private emit(): void {
    this.reportRepeats(); // they came before this line
    const whole = Buffer.concat(this.pending, this.pendingBytes);
    // A line cut at maxBytes ends before the character the cut split, not in a U+FFFD.
    const bytes = this.truncated ? whole.subarray(0, completeUtf8Length(whole)) : whole;
    let line = bytes.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const truncated = this.truncated;
    if (this.counter && line.length > 0) {
      this.previous = bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
      this.previousTruncated = truncated;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.truncated = false;
    this.onLine(line, truncated);
  }
}

/** The length of `bytes` without a last UTF-8 character left incomplete (a cut through a multi-byte character). */
export function completeUtf8Length(bytes: Buffer): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return bytes.length;
  const byte = bytes[lead]!;
  const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return bytes.length - lead < needs ? lead : bytes.length;
}
