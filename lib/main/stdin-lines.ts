// stdio mode's stdin on the main thread, cut at line ends: framing only, the main thread never
// parses a line. A hub is sent whole lines, so the lines a hub that died had taken but not read
// can go to the next hub as they came, none cut in two. A line longer than `maxLineBytes` (the
// hub refuses it anyway, naming the limit) passes as it comes and is never sent twice.

export type StdinPiece = {
  bytes: Buffer;
  /** Whole lines: may go to the next hub if the one it was sent to dies before reading it. */
  whole: boolean;
  /** Already sent to a hub that died before reading it: a second such hub means it is dropped. */
  resent: boolean;
};

const NEWLINE = 0x0a;

export class StdinLines {
  // The start of the line under way, held until its end comes.
  private partial: Buffer[] = [];
  private partialBytes = 0;
  // The line under way is over the limit: its bytes pass as they come.
  private long = false;
  // A hub died in the middle of a long line: the rest of it goes nowhere.
  private skipping = false;
  private skipped = 0;

  /** `onSkipped`: bytes of a long line that went nowhere, because the hub that had its start died. */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onSkipped: (bytes: number) => void = () => undefined,
  ) {}

  /** Bytes read from stdin: what may go to a hub now, in order. */
  push(chunk: Buffer): StdinPiece[] {
    const out: StdinPiece[] = [];
    let data = chunk;
    if (this.skipping || this.long) {
      const end = data.indexOf(NEWLINE);
      const through = end === -1 ? data : data.subarray(0, end + 1);
      if (this.long && through.length) out.push(piece(through, false));
      else this.skipped += through.length;
      if (end === -1) return out;
      this.reportSkipped();
      this.skipping = false;
      this.long = false;
      data = data.subarray(end + 1);
    }
    const last = data.lastIndexOf(NEWLINE);
    if (last !== -1) {
      const lines = data.subarray(0, last + 1);
      out.push(piece(this.partialBytes ? Buffer.concat([...this.partial, lines]) : lines, true));
      this.partial = [];
      this.partialBytes = 0;
      data = data.subarray(last + 1);
    }
    if (data.length) this.hold(data, out);
    return out;
  }

  /** stdin ended: its last line, when it has no newline of its own. */
  end(): StdinPiece | null {
    this.reportSkipped();
    if (!this.partialBytes) return null;
    const last = piece(Buffer.concat(this.partial), true);
    this.partial = [];
    this.partialBytes = 0;
    return last;
  }

  /** The hub that took the start of the long line under way died: no other hub can read it whole, so the rest of it is dropped. */
  longLineLost(): void {
    if (!this.long) return;
    this.long = false;
    this.skipping = true;
  }

  // Skipped bytes are reported once per line, at its end (or stdin's), not per read.
  private reportSkipped(): void {
    if (this.skipped) this.onSkipped(this.skipped);
    this.skipped = 0;
  }

  private hold(rest: Buffer, out: StdinPiece[]): void {
    this.partial.push(rest);
    this.partialBytes += rest.length;
    // One byte more may be a CRLF line's '\r', which the hub does not count.
    if (this.partialBytes <= this.maxLineBytes + 1) return;
    out.push(piece(Buffer.concat(this.partial), false));
    this.partial = [];
    this.partialBytes = 0;
    this.long = true;
  }
}

function piece(bytes: Buffer, whole: boolean): StdinPiece {
  return { bytes, whole, resent: false };
}

/**
 * The pieces sent to the current hub that it has not acknowledged as read, in order. Acknowledged
 * bytes come in the order they were sent; when the hub dies the rest goes to the next hub once.
 */
export class UnreadPieces {
  private pieces: StdinPiece[] = [];

  sent(piece: StdinPiece): void {
    this.pieces.push(piece);
  }

  read(bytes: number): void {
    let left = bytes;
    while (left > 0 && this.pieces.length) {
      const first = this.pieces[0]!;
      if (first.bytes.length > left) {
        // Not seen: the hub acknowledges the pieces it was sent. Its rest would start mid-line: never sent again.
        this.pieces[0] = { ...first, bytes: first.bytes.subarray(left), whole: false };
        return;
      }
      left -= first.bytes.length;
      this.pieces.shift();
    }
  }

  /** The hub died: whole lines sent to no dead hub before go to the next one; the rest is dropped (its bytes counted). */
  takeForNextHub(): { again: StdinPiece[]; dropped: number } {
    const again: StdinPiece[] = [];
    let dropped = 0;
    for (const piece of this.pieces) {
      if (piece.whole && !piece.resent) again.push({ ...piece, resent: true });
      else dropped += piece.bytes.length;
    }
    this.pieces = [];
    return { again, dropped };
  }
}
