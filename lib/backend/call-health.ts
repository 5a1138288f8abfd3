import type { CallOutcome } from '../shared/messages/calls.ts';

/**
 * The run of routed calls that timed out in a row (three is a critical error, decisions §3). A
 * call the backend answered, with a result or an MCP error of its own, ends the run; a call that
 * was cancelled or could not reach the backend leaves it as it is.
 */
export class TimeoutRun {
  private count = 0;

  /** The new length of the run when this outcome changes it, else null. */
  record(outcome: CallOutcome): number | null {
    const next = outcome.ok || outcome.error.kind === 'mcp' ? 0 : outcome.error.kind === 'timeout' ? this.count + 1 : this.count;
    if (next === this.count) return null;
    this.count = next;
    return next;
  }
}
