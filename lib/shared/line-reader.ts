// Newline-delimited framing, one for every byte stream the service reads or writes line by line
// (a backend's stdout, stdio mode, the control socket). Lines come out as Buffers without their
// '\n'. A line longer than the limit is never held whole: it is skipped, and only its first 64 KiB
// and last 1 KiB are kept, so the caller can say what it was.

export const OVERSIZED_HEAD_BYTES = 64 * 1024;
export const OVERSIZED_TAIL_BYTES = 1024;

/** A skipped line: its length in bytes (without the '\n'), its first and last bytes. */
export type OversizedLine = { oversized: true; bytes: number; head: Buffer; tail: Buffer };
export type ReadLine = Buffer | OversizedLine;

const EMPTY = Buffer.alloc(0);

export function isOversized(line: ReadLine): line is OversizedLine {
  return !Buffer.isBuffer(line);
}

/** One JSON value as a line of newline-delimited JSON. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

export class LineReader {
  // The current line so far: its parts while it is within the limit, else its head and tail.
  private parts: Buffer[] = [];
  private bytes = 0;
  private skipping = false;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = EMPTY;

  /** `maxBytes`: the longest line returned whole, in bytes without the '\n' (nor the '\r' of a CRLF line). */
  constructor(readonly maxBytes: number) {}

  /** Bytes of the line under way (not ended by a '\n' yet): a caller may refuse to wait for its end. */
  get partialBytes(): number {
    return this.bytes;
  }

  /** The line under way is over the limit however it ends (its one byte more may still be a CRLF line's '\r'): a caller may refuse to wait for its end. */
  get overLimit(): boolean {
    return this.bytes > this.maxBytes + 1;
  }

  /** The stream ended: the line under way, if any, as if a '\n' had ended it. */
  end(): ReadLine | null {
    return this.bytes > 0 ? this.take() : null;
  }

  /** The complete lines this chunk ends, in order. */
  push(chunk: Buffer): ReadLine[] {
    const lines: ReadLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start) this.append(chunk.subarray(start, end));
      if (nl === -1) return lines;
      lines.push(this.take());
      start = nl + 1;
    }
  }

  private append(part: Buffer): void {
    this.bytes += part.length;
    // One byte more is kept whole: it may be the '\r' of a CRLF line, which is not counted.
    if (!this.skipping && this.bytes <= this.maxBytes + 1) {
      this.parts.push(part);
      return;
    }
    if (!this.skipping) {
      // Over the limit: from here on only the head and the tail are kept.
      this.skipping = true;
      const parts = this.parts;
      this.parts = [];
      for (const kept of parts) this.keep(kept);
    }
    this.keep(part);
  }

  private lastByte(): number | undefined {
    const last = this.parts[this.parts.length - 1];
    return last?.[last.length - 1];
  }

  // Copies (never slices) what it keeps, so a large chunk is not retained through a view of it.
  private keep(part: Buffer): void {
    if (this.headBytes < OVERSIZED_HEAD_BYTES) {
      const piece = Buffer.from(part.subarray(0, OVERSIZED_HEAD_BYTES - this.headBytes));
      this.head.push(piece);
      this.headBytes += piece.length;
    }
    if (part.length >= OVERSIZED_TAIL_BYTES) this.tail = Buffer.from(part.subarray(part.length - OVERSIZED_TAIL_BYTES));
    else this.tail = Buffer.concat([this.tail, part]).subarray(-OVERSIZED_TAIL_BYTES);
  }

  private take(): ReadLine {
    // A line one byte over the limit kept whole is within it if that byte is a CRLF line's '\r'.
    if (!this.skipping && this.bytes > this.maxBytes && this.lastByte() !== 13) {
      this.skipping = true;
      for (const kept of this.parts) this.keep(kept);
      this.parts = [];
    }
    const crlf = this.skipping && this.tail[this.tail.length - 1] === 13;
    const line: ReadLine = this.skipping
      ? { oversized: true, bytes: crlf ? this.bytes - 1 : this.bytes, head: Buffer.concat(this.head, this.headBytes), tail: Buffer.from(this.tail) }
      : this.parts.length === 1
        ? this.parts[0]!
        : Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    this.skipping = false;
    this.head = [];
    this.headBytes = 0;
    this.tail = EMPTY;
    return line;
  }
}
