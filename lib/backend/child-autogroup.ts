// A backend child's autogroup goes below the service (lowerAutogroupPriority says why). An
// unprivileged process gets one autogroup change per 100 ms from the kernel, machine-wide: when
// many backends start at once, each child's change is retried, with backoff, until it is taken,
// the child is gone, or the attempts run out.
import { type AutogroupOutcome, lowerAutogroupPriority } from '../shared/priority.ts';

const MAX_ATTEMPTS = 40;

/** Wait before attempt `n` (1-based, after a busy answer): 100 ms doubling to 2 s, with jitter so starts spread. */
export function autogroupRetryMs(n: number): number {
  return Math.min(100 * 2 ** (n - 1), 2_000) + Math.floor(Math.random() * 100);
}

export type AutogroupLowering = {
  /** The last outcome; `busy` when the attempts ran out, `cancelled` when stopped first. */
  settled: Promise<AutogroupOutcome | { outcome: 'cancelled' }>;
  cancel(): void;
};

export type AutogroupOptions = {
  /** One try (the kernel's file); replaced only to stand in for a busy kernel in tests. */
  attempt?: (pid: number, nice: number) => AutogroupOutcome;
  retryMs?: (n: number) => number;
  maxAttempts?: number;
};

export function lowerChildAutogroup(pid: number, nice: number, options: AutogroupOptions = {}): AutogroupLowering {
  const attempt = options.attempt ?? lowerAutogroupPriority;
  const retryMs = options.retryMs ?? autogroupRetryMs;
  const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
  let timer: NodeJS.Timeout | null = null;
  let finish: (value: AutogroupOutcome | { outcome: 'cancelled' }) => void = () => undefined;
  const settled = new Promise<AutogroupOutcome | { outcome: 'cancelled' }>((resolve) => (finish = resolve));
  let tries = 0;
  const run = () => {
    timer = null;
    const result = attempt(pid, nice);
    tries++;
    if (result.outcome !== 'busy' || tries >= maxAttempts) return finish(result);
    timer = setTimeout(run, retryMs(tries));
  };
  run();
  return {
    settled,
    cancel() {
      if (timer === null) return;
      clearTimeout(timer);
      timer = null;
      finish({ outcome: 'cancelled' });
    },
  };
}
