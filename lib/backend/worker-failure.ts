// The end of a backend worker thread that fails anyway (an uncaught exception, a library calling
// process.exit()). Its child is killed and reaped first: libuv reaps a child only while the
// thread that spawned it runs its loop, so a thread that went at once would leave a zombie, or a
// live child nobody supervises. Then the main thread is told why, and the thread exits for real.
import type { ExitInfo, RunnerEvent } from '../shared/messages/state-events.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { Code } from '../shared/errors.ts';

// A child that cannot be reaped in this time (stuck in the kernel) does not keep the thread.
const REAP_WAIT_MS = 2_000;

export type Failure = { reason: string; stack?: string | undefined; code: number };

export type FailureDeps = {
  /** SIGKILL the child's group; resolves with its exit once reaped (null without a child). */
  kill: () => Promise<ExitInfo | null>;
  emit: (event: RunnerEvent) => void;
  /** Masks the configured secrets of the thread's backends, before anything redacts or folds the text. */
  mask?: (text: string) => string;
  /** The real process.exit of the thread. */
  exit: (code: number) => void;
};

/** The failure path; only the first failure counts, later ones (while the child is reaped) are ignored. */
export function failWorker(deps: FailureDeps): (failure: Failure) => void {
  let failing = false;
  return (failure) => {
    if (failing) return;
    failing = true;
    void (async () => {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<null>((resolve) => (timer = setTimeout(resolve, REAP_WAIT_MS, null)));
      const exit = await Promise.race([deps.kill().catch(() => null), gaveUp]);
      clearTimeout(timer);
      const clean = (text: string) => redactCredentials(deps.mask ? deps.mask(text) : text);
      const message = clean(failure.reason);
      const fields = { code: Code.internal, error: message, ...(failure.stack ? { stack: clean(failure.stack) } : {}), exitCode: failure.code };
      deps.emit({ v: 1, type: 'log', level: 'error', msg: 'backend worker failed; its child was ended', fields });
      deps.emit({ v: 1, type: 'failed', at: Date.now(), error: { name: 'WorkerFailed', message: `backend worker failed: ${message}` }, authRequired: false, exit });
      deps.exit(failure.code);
    })();
  };
}
