// --max-sessions across every hub: each hub counts its own sessions in its slot of one shared
// array, and a new session is admitted while the sum is under the cap. A hub's share was
// ceil(max / hubs) before, and requests go round-robin, so a service with room refused sessions
// (2 hubs, --max-sessions 10: every other initialize refused with 6 open). A hub that dies takes
// its count with it: its next worker starts its slot at zero. Shared by the main thread and hubs.

/** The shared slots: one 32-bit counter per hub. */
export function sessionSlots(hubs: number): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * Math.max(1, hubs));
}

export class SessionQuota {
  private readonly slots: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly index: number,
    readonly max: number,
  ) {
    this.slots = new Int32Array(buffer);
    // This hub's earlier worker (if any) is gone, and its sessions with it.
    Atomics.store(this.slots, index, 0);
  }

  /** The sessions open in every hub. */
  total(): number {
    let sum = 0;
    for (let i = 0; i < this.slots.length; i++) sum += Atomics.load(this.slots, i);
    return sum;
  }

  /** Takes a place for a new session; false when the service keeps `max` already. Two hubs taking the last place at once may both be refused, never both admitted. */
  take(): boolean {
    Atomics.add(this.slots, this.index, 1);
    if (this.total() <= this.max) return true;
    Atomics.sub(this.slots, this.index, 1);
    return false;
  }

  /** Gives back the place of a session that closed, or of one that was never made. */
  release(): void {
    Atomics.sub(this.slots, this.index, 1);
  }
}
