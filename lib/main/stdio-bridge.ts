// stdio mode on the main thread: stdin bytes go to hub 0 over the byte pump, and what the hub
// writes comes back to stdout; the main thread never parses either. Credits bound stdin (it is
// paused while the hub is a window behind, or down), and stdout is acknowledged once written.
// EOF on stdin is the client leaving: the service shuts down.
import { PUMP_WINDOW_BYTES } from '../shared/messages/pump.ts';
import type { PumpClient } from './pump-client.ts';

export type StdioStreams = { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream };

export class StdioBridge {
  private pump: PumpClient | null = null;
  private unacked = 0;
  private ended = false;
  // Read while no hub could take it: sent when one is back.
  private held: Buffer[] = [];

  constructor(
    private readonly onEnd: () => void,
    private readonly streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout },
  ) {
    const { stdin } = streams;
    stdin.pause();
    stdin.on('data', (chunk: Buffer) => {
      if (!this.pump) return this.pauseFor(chunk);
      this.send(chunk);
    });
    const end = () => {
      if (this.ended) return;
      this.ended = true;
      this.pump?.stdinEnd();
      this.onEnd();
    };
    stdin.once('end', end);
    stdin.once('close', end);
  }

  // No hub to take it: keep the chunk and stop reading until one is back.
  private pauseFor(chunk: Buffer): void {
    this.held.push(chunk);
    this.streams.stdin.pause();
  }

  private send(chunk: Buffer): void {
    this.unacked += chunk.byteLength;
    this.pump!.stdin(chunk);
    if (this.unacked >= PUMP_WINDOW_BYTES) this.streams.stdin.pause();
  }

  /** Hub 0 is (again) up: stdin flows to it and its output to stdout. */
  attach(pump: PumpClient): void {
    this.pump = pump;
    this.unacked = 0;
    pump.onStdout = (chunk, written) => void this.streams.stdout.write(chunk, () => written());
    pump.onStdinCredit = (bytes) => {
      this.unacked -= bytes;
      if (this.unacked < PUMP_WINDOW_BYTES && !this.ended) this.streams.stdin.resume();
    };
    const held = this.held;
    this.held = [];
    for (const chunk of held) this.send(chunk);
    if (this.ended) pump.stdinEnd();
    else if (this.unacked < PUMP_WINDOW_BYTES) this.streams.stdin.resume();
  }

  /** Hub 0 went down: stdin waits for the next one. */
  detach(): void {
    this.pump = null;
  }
}
