// stdio mode on the main thread: stdin bytes go to hub 0 over the byte pump, and what the hub
// writes comes back to stdout; the main thread never parses either. Credits bound stdin (it is
// paused while the hub is a window behind, or down), and stdout is acknowledged once written.
// EOF on stdin is the client leaving: the hub answers what it read by then and says when it is
// done (a piped `agent serve --transport stdio < requests` gets its answers), then the service
// shuts down; at the latest when `drainUntil` says, or at once if the hub dies meanwhile.
// stdin goes in whole lines (stdin-lines.ts): the lines a hub that died had not read go to the
// next hub, once; those it read and owed an answer get an error line each.
import { PUMP_WINDOW_BYTES } from '../shared/messages/pump.ts';
import { failureLines } from '../shared/hub-failure.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../shared/messages/state-events.ts';
import type { PumpClient } from './pump-client.ts';
import { type StdinPiece, StdinLines, UnreadPieces } from './stdin-lines.ts';

export type StdioStreams = { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream };

export type StdioBridgeOptions = {
  /**
   * Until when (epoch ms) the answers owed at EOF may take, given when stdin ended. Asked again
   * when that time comes, so a deadline first asked before the configuration loaded can grow.
   */
  drainUntil: (endedAt: number) => number;
  streams?: StdioStreams;
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(timer: unknown): void };
  now?: () => number;
  /** The longest line a hub takes (`--max-message-bytes`): a longer one is passed on as it comes, never sent to a hub twice. */
  maxLineBytes?: number;
  /** stdin bytes dropped: two hubs in a row died before reading them (they may be what kills a hub), or part of an over-long line. */
  onDropped?: (bytes: number) => void;
};

const MAX_TIMER_MS = 2 ** 31 - 1;

const realTimers = { setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout) };

export class StdioBridge {
  private pump: PumpClient | null = null;
  private unacked = 0;
  private ended = false;
  private finished = false;
  private outputGone = false;
  private drainTimer: unknown = null;
  // Read while no hub could take it: sent when one is back. Up to a window is read ahead, so the end
  // of a short stdin is seen (and its deadline runs) even if no hub ever comes.
  private held: StdinPiece[] = [];
  private heldBytes = 0;
  private readonly lines: StdinLines;
  // The last piece sent was part of a line over the limit: if the hub dies, the rest of that line goes nowhere.
  private longLineSent = false;
  // A hub died after EOF owing answers (failed with error lines) or with lines dropped.
  private lostAfterEnd = false;
  // Sent to the current hub and not read by it yet.
  private readonly unread = new UnreadPieces();
  // The client's initialize line (2025 era), as the hub read it: a hub that replaces one that died
  // hears it first, so it knows the client's protocol version and capabilities.
  private initializeLine: Uint8Array | null = null;
  private readonly streams: StdioStreams;
  private readonly timers: NonNullable<StdioBridgeOptions['timers']>;

  /** `onEnd(reason, clean)`: the client is gone and owed nothing more (`clean`), or answers were lost. */
  constructor(
    private readonly onEnd: (reason: string, clean: boolean) => void,
    private readonly options: StdioBridgeOptions,
  ) {
    this.streams = options.streams ?? { stdin: process.stdin, stdout: process.stdout };
    this.timers = options.timers ?? realTimers;
    this.lines = new StdinLines(options.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES, (bytes) => this.options.onDropped?.(bytes));
    const { stdin } = this.streams;
    // Read from the start, a window ahead of any hub: a stdin that ends before one is up is seen to end.
    stdin.on('data', (chunk: Buffer) => {
      for (const piece of this.lines.push(chunk)) this.route(piece);
    });
    const now = options.now ?? Date.now;
    const end = () => {
      if (this.ended) return;
      this.ended = true;
      const last = this.lines.end();
      if (last) this.route(last);
      this.pump?.stdinEnd();
      const endedAt = now();
      const wait = () => {
        const left = this.options.drainUntil(endedAt) - now();
        // Node fires a longer timer at once: wait in steps of the longest it takes.
        if (left > 0) this.drainTimer = this.timers.setTimeout(wait, Math.min(left, MAX_TIMER_MS));
        else this.finish(`stdin closed; answers still owed ${now() - endedAt} ms later were not sent`);
      };
      wait();
    };
    stdin.once('end', end);
    stdin.once('close', end);
    // The client closed our stdout (EPIPE): nobody can read an answer any more.
    this.streams.stdout.on('error', (error: NodeJS.ErrnoException) => {
      this.outputGone = true;
      this.finish(`stdout closed by the client (${error.code ?? error.message})`);
    });
  }

  private route(piece: StdinPiece): void {
    if (this.pump) this.send(piece);
    else this.hold(piece);
  }

  // No hub to take it: keep the piece; beyond a window, stop reading until one is back.
  private hold(piece: StdinPiece): void {
    this.held.push(piece);
    this.heldBytes += piece.bytes.byteLength;
    if (this.heldBytes >= PUMP_WINDOW_BYTES) this.streams.stdin.pause();
  }

  private send(piece: StdinPiece): void {
    this.unacked += piece.bytes.byteLength;
    this.unread.sent(piece);
    this.longLineSent = !piece.whole;
    // The hub gets a copy (transferred), the bridge keeps the bytes until the hub has read them.
    this.pump!.stdin(Uint8Array.prototype.slice.call(piece.bytes));
    if (this.unacked >= PUMP_WINDOW_BYTES && !this.ended) this.streams.stdin.pause();
  }

  private finish(reason: string, clean = false): void {
    if (this.finished) return;
    this.finished = true;
    if (this.drainTimer !== null) this.timers.clearTimeout(this.drainTimer);
    this.onEnd(reason, clean);
  }

  /** Bytes of stdin read while no hub was up, not yet sent to one (whole lines, and requests among them). */
  get unsentBytes(): number {
    return this.heldBytes;
  }

  /** Resolves once stdout has written what it holds, or after `ms` (a reader that stopped reading). */
  flushed(ms: number): Promise<void> {
    const { stdout } = this.streams;
    if (this.outputGone || !(stdout as NodeJS.WriteStream).writableLength) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.timers.clearTimeout(timer);
        stdout.off('drain', done);
        resolve();
      };
      const timer = this.timers.setTimeout(done, ms);
      stdout.once('drain', done);
    });
  }

  /** Hub 0 is (again) up: stdin flows to it and its output to stdout. */
  attach(pump: PumpClient): void {
    this.pump = pump;
    this.unacked = 0;
    pump.onStdout = (chunk, written) => (this.outputGone ? written() : void this.streams.stdout.write(chunk, () => written()));
    pump.onStdinCredit = (bytes) => {
      if (this.pump !== pump) return;
      this.unacked -= bytes;
      this.unread.read(bytes);
      if (this.unacked < PUMP_WINDOW_BYTES && !this.ended) this.streams.stdin.resume();
    };
    pump.onStdioInitialize = (line) => (this.initializeLine = line);
    if (this.initializeLine) pump.stdioReplay(this.initializeLine);
    // The last answer is written once stdout has taken everything before it. A write that failed
    // (EPIPE) is not a clean end: its 'error' event ends the service, unclean. A hub that died after
    // EOF failed or dropped what it owed: not clean either, though a next hub answered the rest.
    pump.onStdoutEnd = () => {
      const reason = this.lostAfterEnd ? 'stdin closed; an MCP hub stopped before it had answered every request' : 'stdin closed';
      if (this.outputGone) return this.finish(reason);
      this.streams.stdout.write('', (error) => error || this.finish(reason, !this.lostAfterEnd));
    };
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const piece of held) this.send(piece);
    if (this.ended) pump.stdinEnd();
    else if (this.unacked < PUMP_WINDOW_BYTES) this.streams.stdin.resume();
  }

  /**
   * Hub 0 went down: the requests it read and owed fail (an error line each); the lines it had not
   * read go to the next one, before anything newer. After EOF the service ends, unless such lines
   * wait for the next hub (the drain deadline still holds).
   */
  detach(): void {
    const failure = this.pump ? failureLines(this.pump.stdioOwed) : '';
    this.pump = null;
    if (failure && !this.outputGone) this.streams.stdout.write(failure);
    const { again, dropped } = this.unread.takeForNextHub();
    if (this.ended && (failure || dropped)) this.lostAfterEnd = true;
    if (this.longLineSent) this.lines.longLineLost();
    this.longLineSent = false;
    if (dropped) this.options.onDropped?.(dropped);
    this.held = [...again, ...this.held];
    this.heldBytes = this.held.reduce((sum, piece) => sum + piece.bytes.byteLength, 0);
    if (this.heldBytes >= PUMP_WINDOW_BYTES) this.streams.stdin.pause();
    // After EOF the service ends, unless lines the hub had not read wait for the next one (the drain deadline still holds).
    if (this.ended && !this.held.length) this.finish('stdin closed; the MCP hub stopped before it had answered');
  }
}
