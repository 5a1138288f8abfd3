// The capture of one backend's stderr, kept across its children: made for the first piped child
// after a stop, it outlives restarts (one quota per backend, decisions §7), takes new limits at
// once (a configuration change) and logs what is pending when the backend stops.
import type { BackendSpec } from '../shared/backend-spec.ts';
import { Code } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { toWireError } from '../shared/messages/state-events.ts';
import type { StderrLimits } from '../shared/stderr-limits.ts';
import { formatStderrEntry, newStderrLimiter, StderrCapture, type StderrLimiter } from './stderr-capture.ts';

export class BackendStderr {
  private capture: StderrCapture | null = null;
  // One quota per backend, so it holds across restarts, a stop and start included; new limits start a new one.
  private limiter: StderrLimiter;

  constructor(
    private readonly spec: BackendSpec,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private limits: StderrLimits,
    /** Masks the server's configured secrets in a line before anything cuts or folds it; null: it has none. */
    private readonly mask: ((line: string, cut: boolean) => string) | null,
  ) {
    this.limiter = newStderrLimiter(limits);
  }

  /** The capture a piped child's stderr goes to. */
  current(): StderrCapture {
    this.capture ??= new StderrCapture({
      emit: (entry) => this.log.info({ stream: 'stderr', ...(entry.kind === 'line' ? (entry.truncated ? { truncated: true } : {}) : { [entry.kind]: entry.count }) }, formatStderrEntry(entry)),
      onError: (error) => this.log.warn({ code: Code.internal, err: toWireError(error).message }, 'stderr capture failed'),
      limits: this.limits,
      limiter: this.limiter,
      ...(this.mask ? { mask: this.mask } : {}),
    });
    return this.capture;
  }

  /** New limits (a configuration change): the running capture switches at once, in a new quota window; later children get them too. */
  setLimits(limits: StderrLimits): void {
    this.limits = limits;
    this.limiter = newStderrLimiter(limits);
    if (this.spec.type !== 'stdio') this.log.info({ stderrLimits: limits }, 'stderr limits changed: not used, a remote server has no stderr');
    else if (this.spec.stderr !== 'pipe') this.log.info({ stderrLimits: limits, stderr: this.spec.stderr }, 'stderr limits changed: not used, this server\'s stderr is not captured (its "stderr" is neither "pipe" nor "overlapped")');
    else this.log.info({ stderrLimits: limits }, 'stderr limits changed: the new quota applies now, without a restart');
    this.capture?.setLimits(limits, this.limiter);
  }

  /** The backend stopped: pending summaries are logged now, then the capture's ticker stops. */
  async close(): Promise<void> {
    const capture = this.capture;
    this.capture = null;
    if (!capture) return;
    await capture.flush();
    capture.close();
  }
}
