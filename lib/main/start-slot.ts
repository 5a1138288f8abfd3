// One backend's place at the start gate (`--worker-start-concurrency`): asked for before its
// worker is created, held while its first start runs (worker load, process boot, initialize, the
// lists), given back when that start connects, fails or stops, when the worker dies, when the
// backend stops, or after `holdMs`, whichever comes first.
import type { StartQueue } from './start-queue.ts';

/** A first start that has not connected, failed or stopped by then gives its start slot back anyway. */
export const START_SLOT_MS = 15_000;

export class StartSlot {
  /** Gives the slot (or the place in line) back; null while none is asked for or held. */
  private release: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** No `queue`: no gate, every start is granted at once. */
  constructor(
    private readonly queue: StartQueue | undefined,
    private readonly name: string,
    private readonly holdMs = START_SLOT_MS,
  ) {}

  /** A slot is asked for or held. */
  get pending(): boolean {
    return this.release !== null;
  }

  /** `granted` runs once the gate lets this backend start: at once without a gate, on a later turn with one. */
  ask(granted: () => void): void {
    if (!this.queue) return granted();
    if (this.release) return;
    this.release = this.queue.ask(this.name, () => {
      this.timer = setTimeout(() => this.free(), this.holdMs);
      this.timer.unref();
      granted();
    });
  }

  /** Gives the slot back (or leaves the line); harmless when none is held. */
  free(): void {
    const release = this.release;
    this.release = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    release?.();
  }
}
