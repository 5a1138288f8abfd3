// Configuration loads, serialized (a change during a load is applied after it, never at the same
// time), with what the operator is told: each rejection logged with file, line and reason (the
// last good configuration stays), a line when the file is valid again, and the facts `agent mcp
// status` shows. Parsing and validation run in the config worker (config-loader.ts).
import { plural } from '../shared/plural.ts';
import { formatProblem } from '../config/errors.ts';
import type { LoadOutcome } from '../config/load.ts';
import type { ConfigLocation } from '../config/paths.ts';
import type { LoadedConfig } from '../config/types.ts';
import type { Logger } from '../shared/logger.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { Code } from '../shared/errors.ts';
import type { ReloadFacts } from './status-view.ts';

export type ReloadOutcome = { ok: boolean; message: string };
/** `passing`: it failed for a reason that passes by itself (worth trying again). */
type RunOutcome = ReloadOutcome & { passing?: boolean };

export type ReloaderOptions = {
  location: ConfigLocation;
  load: (location: ConfigLocation) => Promise<LoadOutcome>;
  apply: (config: LoadedConfig) => Promise<void>;
  /** Whether a configuration is in service (for what a rejection keeps). */
  loaded: () => boolean;
  log: Logger;
  /** How long after a load that failed for want of resources it is tried again (RESOURCE_RETRY_MS). */
  retryMs?: number;
};

export const RESOURCE_RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;
/** A file that could not be read for want of resources. */
const PASSING = /\b(?:EMFILE|ENFILE|EAGAIN|ENOMEM)\b/;
const LOAD_FAILED = 'configuration load failed';

// The entries of a loaded configuration that were not taken, for the one who asked for the reload
// (each is also in the log and in `agent mcp status`).
function notTaken(config: LoadedConfig): string {
  const refused = config.servers.filter((slot) => slot.problems?.length);
  if (refused.length === 0) return '';
  const each = refused.map((slot) => `${slot.name}: ${slot.problems!.map(formatProblem).join('; ')}`);
  return `; ${refused.length} ${refused.length === 1 ? 'entry was' : 'entries were'} not taken (a server already running keeps its last good entry): ${each.join(' | ')}`;
}

export class ConfigReloader {
  private loading: Promise<unknown> = Promise.resolve();
  private closed = false;
  private appliedFingerprint = '';
  /** The first load has been attempted (whatever its outcome). */
  attempted = false;
  readonly facts: ReloadFacts = { loadedAt: null, rejected: null };
  // The files the last rejection named.
  private rejectedFiles: string[] = [];

  constructor(private readonly options: ReloaderOptions) {}

  reload(why: string): Promise<ReloadOutcome> {
    const next = this.loading
      .then(() => this.run(why))
      .catch((error: unknown): RunOutcome => {
        // Bad input never throws: a load that did is its worker not starting or answering, worth
        // trying again; but a stack run out (RangeError) is input the checks missed (json-depth.ts):
        // the same file would fail the same way every time, so it is not retried.
        const passing = !(error instanceof RangeError);
        this.options.log.error({ code: Code.internal, error: redactCredentials(error), retried: passing }, LOAD_FAILED);
        return { ok: false, message: `${LOAD_FAILED}: ${redactCredentials(error)}`, passing };
      })
      .then(({ ok, message, passing }) => {
        // A change made while the process was out of descriptors is not lost: tried again until it loads.
        if (ok) this.cancelRetry();
        else if (passing) this.retryLater();
        return { ok, message };
      });
    this.loading = next;
    return next;
  }

  private retryTimer: NodeJS.Timeout | null = null;
  private retries = 0;

  // Every 5 s at first, then less often (up to a minute): a failure that does not pass is not retried in a tight loop.
  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    const ms = Math.min((this.options.retryMs ?? RESOURCE_RETRY_MS) * 2 ** this.retries, MAX_RETRY_MS);
    this.retries++;
    this.options.log.warn({ code: Code.internal, retryInMs: ms }, `configuration load failed for want of resources; trying again in ${ms / 1000} s`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.reload('retry');
    }, ms);
    this.retryTimer.unref();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retries = 0;
  }

  private async run(why: string): Promise<RunOutcome> {
    const { location, log } = this.options;
    if (this.closed) return { ok: false, message: 'the service is shutting down' };
    const outcome = await this.options.load(location).finally(() => (this.attempted = true));
    if (this.closed) return { ok: false, message: 'the service is shutting down' };
    if (!outcome.ok) {
      const kept = this.options.loaded() ? 'the last good configuration stays active' : 'the service stays up without a configuration (503) until a valid file appears';
      for (const problem of outcome.problems) log.error({ code: problem.code ?? Code.invalid_config, file: problem.file, line: problem.line, column: problem.column, path: problem.path || undefined }, `configuration rejected: ${formatProblem(problem)}; ${kept}`);
      const reason = outcome.problems.map(formatProblem).join('; ');
      this.facts.rejected = { at: new Date().toISOString(), reason };
      this.rejectedFiles = [...new Set(outcome.problems.map((p) => p.file))];
      // Unreadable for want of resources, not for what the file says: worth trying again.
      const passing = outcome.problems.some((p) => p.expected === 'a readable file' && PASSING.test(p.found));
      return { ok: false, message: `${reason}; ${kept}`, passing };
    }
    const recovered = this.facts.rejected;
    this.facts.rejected = null;
    // Named by the files that were rejected: the .env beside mcp.json may have been the one.
    if (recovered) log.info({ file: location.file, rejectedFiles: this.rejectedFiles, rejectedSince: recovered.at }, `configuration is valid again (${this.rejectedFiles.join(', ')} was rejected)`);
    // Editors, symlink swaps and our own files make events without a change: nothing to do then.
    if ((why === 'file changed' || why === 'retry') && outcome.fingerprint === this.appliedFingerprint) return { ok: true, message: 'configuration unchanged' };
    // Taken as applied only once it is: a retry after a failed apply must apply it again.
    await this.options.apply(outcome.config);
    this.appliedFingerprint = outcome.fingerprint;
    this.facts.loadedAt = new Date().toISOString();
    log.info({ file: location.file, servers: outcome.config.servers.length, reason: why }, 'configuration loaded');
    return { ok: true, message: `loaded ${plural(outcome.config.servers.length, 'server')} from ${location.file}${notTaken(outcome.config)}` };
  }

  /** No more loads; resolves when the one under way (if any) is done. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelRetry();
    await this.loading;
  }
}
