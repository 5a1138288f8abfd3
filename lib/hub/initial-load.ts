// The start-up wait (issue 12): while the first configuration load is in progress, initialize,
// list requests and calls to a backend on its first connect wait until every enabled backend has
// finished its first attempt (connected, failed or awaiting OAuth), at most `--initial-wait` ms;
// then they are answered with what is there. A one-shot client no longer sees an empty list.
import type { BackendState } from '../shared/backend-state.ts';
import { firstConnectInProgress } from '../shared/status.ts';
import type { InitialLoadGate } from './link-types.ts';

type Facts = Pick<BackendState, 'name' | 'phase' | 'firstConnect' | 'supervision'>;

/** Backends whose first attempt has not ended. */
export function stillLoading(backends: Iterable<Facts>): string[] {
  const names: string[] = [];
  for (const b of backends) if (firstConnectInProgress(b)) names.push(b.name);
  return names;
}

export type InitialLoadOptions = {
  waitMs: number;
  /** The backends as they are now; null until the first configuration load has been attempted. */
  backends: () => Iterable<Facts> | null;
  /** Other backends still waited for (a restarted hub: connected ones whose channel has not said so yet). */
  alsoWaiting?: () => string[];
  onDeadline?: (stillConnecting: string[]) => void;
};

export class InitialLoad implements InitialLoadGate {
  private done = false;
  private readonly promise: Promise<void>;
  private finish: () => void = () => undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: InitialLoadOptions) {
    this.promise = new Promise((resolve) => (this.finish = resolve));
    this.timer = setTimeout(() => {
      if (this.done) return;
      this.options.onDeadline?.([...stillLoading(this.options.backends() ?? []), ...(this.options.alsoWaiting?.() ?? [])]);
      this.settle();
    }, options.waitMs);
    this.update();
  }

  /** Call when the configuration was (re)loaded or a backend's state changed. */
  update(): void {
    if (this.done) return;
    const backends = this.options.backends();
    if (backends !== null && stillLoading(backends).length === 0 && !this.options.alsoWaiting?.().length) this.settle();
  }

  private settle(): void {
    this.done = true;
    clearTimeout(this.timer);
    this.finish();
  }

  settled(): Promise<void> {
    return this.promise;
  }

  isSettled(): boolean {
    return this.done;
  }
}
