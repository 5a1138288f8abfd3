import { DEFAULT_STDERR_LIMITS } from '../shared/stderr-limits.ts';

export const MAX_LINE_BYTES = DEFAULT_STDERR_LIMITS.lineBytes;

// Splits a byte stream into lines, cutting any line at `maxBytes` (decisions §7) so a child that
// never writes a newline cannot grow the buffer without bound.
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private truncated = false;

  constructor(
    private readonly onLine: (line: string, truncated: boolean) => void,
    /** Changing it applies from the next line; a line already longer is cut where it stands. */
    public maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      this.append(chunk.subarray(start, end));
      if (nl === -1) break;
      this.emit();
      start = nl + 1;
    }
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
    let line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const truncated = this.truncated;
    this.pending = [];
    this.pendingBytes = 0;
    this.truncated = false;
    this.onLine(line, truncated);
  }
}
