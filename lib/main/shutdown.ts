// The service's shutdown as ordered steps under one deadline. A step that fails is logged and
// the next one still runs; past the deadline, or after any failure, every backend process group
// is killed (nothing may outlive the service) and the exit code is 1.
import type { Logger } from '../shared/logger.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { Code } from '../shared/errors.ts';

export type ShutdownStep = { name: string; run: () => Promise<unknown> | unknown };

export type ShutdownTimers = { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(timer: unknown): void };

const realTimers: ShutdownTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export type ShutdownOptions = {
  deadlineMs: number;
  log: Pick<Logger, 'error' | 'info'>;
  /** SIGKILLs every backend process group the service knows of. Synchronous. */
  killAll: () => void;
  timers?: ShutdownTimers;
};

/** Runs the steps in order; resolves with the exit code (0 clean, 1 failed or too slow). */
export function runShutdown(steps: ShutdownStep[], { deadlineMs, log, killAll, timers = realTimers }: ShutdownOptions): Promise<0 | 1> {
  return new Promise((resolve) => {
    let current = '';
    let settled = false;
    const finish = (code: 0 | 1) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      resolve(code);
    };
    const timer = timers.setTimeout(() => {
      if (settled) return;
      log.error({ code: Code.internal, deadlineMs, step: current }, `shutdown did not finish within ${deadlineMs} ms (stuck at: ${current}): killing every backend process group`);
      killAll();
      finish(1);
    }, deadlineMs);
    void (async () => {
      let failed = false;
      for (const step of steps) {
        if (settled) return;
        current = step.name;
        try {
          await step.run();
        } catch (error) {
          failed = true;
          log.error({ code: Code.internal, step: step.name, error: redactCredentials(error) }, `shutdown step failed: ${step.name}`);
        }
      }
      if (settled) return;
      if (failed) {
        log.error({ code: Code.internal }, 'shutdown had errors: killing every backend process group');
        killAll();
      }
      finish(failed ? 1 : 0);
    })();
  });
}
