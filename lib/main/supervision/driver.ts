// The thin effectful side of supervision: feeds events to the pure machine, keeps its timers,
// and carries out its commands on the backend (through the effects the handle provides).
import { attemptLimit, decide, initialSupervisorState, type SupervisionPolicy, type SupervisorCommand, type SupervisorEvent, type SupervisorState } from './machine.ts';

export type SupervisorEffects = {
  /** Start a fresh process, transport and MCP client. */
  spawn(): void;
  /** End the running child; resolves when it is gone. */
  kill(): Promise<void>;
  failInflight(reason: 'restarting' | 'crashLoop' | 'stopped'): void;
  /** The machine's state changed (for the state table and the log). */
  publish(state: SupervisorState): void;
};

export type Clock = {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
};

export const realClock: Clock = {
  now: Date.now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class Supervisor {
  state: SupervisorState;
  private timers: unknown[] = [];
  // Commands run in order: an operator restart's kill completes before its spawn.
  private queue: Promise<void> = Promise.resolve();

  constructor(
    policy: SupervisionPolicy,
    private readonly effects: SupervisorEffects,
    private readonly clock: Clock = realClock,
  ) {
    this.state = initialSupervisorState(policy);
  }

  get limit(): number | null {
    return attemptLimit(this.state.policy);
  }

  send(event: SupervisorEvent): Promise<void> {
    const { state, commands } = decide(this.state, event, this.clock.now());
    const changed = state !== this.state;
    this.state = state;
    if (changed) this.effects.publish(state);
    if (commands.length) this.queue = this.queue.then(() => this.run(commands));
    return this.queue;
  }

  private async run(commands: SupervisorCommand[]): Promise<void> {
    for (const command of commands) {
      switch (command.type) {
        case 'spawn':
          this.effects.spawn();
          break;
        case 'kill':
          await this.effects.kill();
          break;
        case 'failInflight':
          this.effects.failInflight(command.reason);
          break;
        case 'scheduleRetry':
          this.after(command.at, { type: 'retryDue' });
          break;
        case 'scheduleStable':
          this.after(command.at, { type: 'stableDue' });
          break;
        case 'cancelTimers':
          for (const timer of this.timers) this.clock.clearTimeout(timer);
          this.timers = [];
          break;
        default: {
          const unknown: never = command;
          throw new Error(`unknown supervision command ${JSON.stringify(unknown)}`);
        }
      }
    }
  }

  // Timers run on a monotonic clock and may fire a millisecond before the wall clock says `at`;
  // the machine would ignore such an early event, so wait out the remainder first.
  private after(at: number, event: SupervisorEvent): void {
    const timer = this.clock.setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      if (this.clock.now() < at) this.after(at, event);
      else void this.send(event);
    }, Math.max(0, at - this.clock.now()));
    this.timers.push(timer);
  }
}
