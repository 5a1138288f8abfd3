// Drives the start gate (start-gate.ts) with real work: at most `limit` backend starts in
// flight, and one worker created per turn of the event loop, so a probe that arrived meanwhile is
// answered between two creations instead of behind all of them.
import { askStart, endStart, type GateStep, newStartGate, type StartGate } from './start-gate.ts';

export type Schedule = (run: () => void) => void;

export class StartQueue {
  private gate: StartGate;
  private readonly starts = new Map<string, () => void>();
  private readonly due: string[] = [];
  private pumping = false;
  private asked = 0;

  /** `limit` 0 = no limit; `schedule` runs a callback on a later turn of the event loop. */
  constructor(
    limit: number,
    private readonly schedule: Schedule = (run) => void setImmediate(run),
  ) {
    this.gate = newStartGate(limit);
  }

  /** Runs `start` once a slot is free; the function returned gives the slot (or the place in line) back, once. */
  ask(name: string, start: () => void): () => void {
    const id = `${name}#${++this.asked}`;
    this.starts.set(id, start);
    this.apply(askStart(this.gate, id));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.starts.delete(id);
      this.apply(endStart(this.gate, id));
    };
  }

  /** Starts running now and waiting (for health and tests). */
  get counts(): { running: number; waiting: number } {
    return { running: this.gate.running.length, waiting: this.gate.waiting.length };
  }

  private apply({ gate, begin }: GateStep): void {
    this.gate = gate;
    this.due.push(...begin);
    this.pump();
  }

  // One start per turn: the next is scheduled from inside the previous one's turn.
  private pump(): void {
    if (this.pumping || this.due.length === 0) return;
    this.pumping = true;
    this.schedule(() => {
      this.pumping = false;
      const id = this.due.shift();
      const start = id === undefined ? undefined : this.starts.get(id);
      start?.();
      this.pump();
    });
  }
}
