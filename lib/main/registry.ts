// Keeps the running backends in step with the configuration: start new ones, stop removed and
// disabled ones, replace changed ones, and keep the last good one when an entry turns invalid.
import type { LoadedConfig, ServerSlot } from '../config/types.ts';
import { redactCredentials, sanitize } from '../shared/sanitize.ts';
import { formatProblem } from '../config/errors.ts';
import { changedKeys, specChange } from '../config/spec-diff.ts';
import { backendNice, niceNotGiven } from './backend-nice.ts';
import { BackendHandle } from './backend-handle.ts';
import type { HandleOptions } from './backend-worker-setup.ts';
import type { StopCause } from './lost-calls.ts';
import { newBackendState } from '../shared/backend-state.ts';
import { descendantsOfAll } from '../shared/proc-stat.ts';
import { Code } from '../shared/errors.ts';
import type { StateTable } from './state-table.ts';

export const DEFAULT_STOP_GRACE_MS = 2_000;

// Why an entry is invalid, where in the file (the file's path would be redacted anyway), credentials redacted.
function invalidReason(slot: ServerSlot): string {
  const reasons = (slot.problems ?? []).map((p) => `${p.path}: expected ${p.expected}, found ${p.found}`);
  return redactCredentials(`invalid configuration: ${reasons.join('; ')}`);
}

/** The catalogue's code of an invalid entry's log line: its problem's own, else invalid_config. */
function invalidCode(slot: ServerSlot) {
  return slot.problems?.find((problem) => problem.code)?.code ?? Code.invalid_config;
}

export class BackendRegistry {
  private readonly handles = new Map<string, BackendHandle>();
  private readonly warned = new Set<string>();
  /** Handles removed from the map whose stop has not finished: still theirs to kill. */
  private readonly stopping = new Set<BackendHandle>();
  // The first configuration's servers start without a line each; later ones are logged.
  private applied = false;

  constructor(
    private readonly table: StateTable,
    private readonly options: HandleOptions & { stopGraceMs: number },
  ) {}

  /** Configuration warnings (a deprecated key, say) are logged once per process, not on every reload. */
  warnOnce(warning: string): void {
    if (this.warned.has(warning)) return;
    this.warned.add(warning);
    this.options.log.warn(warning);
  }

  /** Applies a loaded configuration; returns once removed and replaced backends have stopped. */
  async apply(config: LoadedConfig): Promise<void> {
    const log = this.options.log;
    const seen = new Set<string>();
    const stops: Promise<void>[] = [];
    const wasDisabled = new Set(this.table.disabled);
    this.table.disabled.clear();
    for (const slot of config.servers) {
      seen.add(slot.name);
      for (const warning of slot.warnings) this.warnOnce(warning);
      if (slot.disabled) {
        this.table.disabled.add(slot.name);
        if (this.handles.has(slot.name)) log.info({ backend: slot.name }, 'server disabled in the configuration: stopping it');
        stops.push(this.remove(slot.name));
        continue;
      }
      if (!slot.spec) {
        stops.push(this.applyInvalid(slot));
        continue;
      }
      const current = this.handles.get(slot.name);
      if (current?.state.entryError) {
        current.state.entryError = null;
        this.options.onFacts?.(slot.name);
        log.info({ backend: slot.name }, 'server entry is valid again');
      }
      const change = current ? specChange(current.spec, slot.spec, (spec) => backendNice(spec, this.options.workerNice)) : 'restart';
      if (current && change === 'none') continue;
      if (current && change === 'metadata') {
        const changed = changedKeys(current.spec, slot.spec);
        current.updateMetadata(slot.spec);
        log.info({ backend: slot.name, changed }, 'server metadata changed: applied without a restart');
        // A new `nice` that leaves the priority as it was (below the service's): said, as at a start.
        const notGiven = changed.includes('nice') ? niceNotGiven(slot.spec, this.options.workerNice) : null;
        if (notGiven) log.warn(notGiven.fields, notGiven.message);
        this.options.onChange?.(slot.name);
        continue;
      }
      // Key names only: their values may be secrets.
      if (current) log.info({ backend: slot.name, changed: changedKeys(current.spec, slot.spec) }, 'server changed in the configuration: restarting it');
      else if (this.applied) log.info({ backend: slot.name }, wasDisabled.has(slot.name) ? 'server enabled in the configuration: starting it' : this.table.backends.has(slot.name) ? 'server entry is valid now: starting it' : 'server added to the configuration: starting it');
      stops.push(this.replace(slot.name, new BackendHandle(slot.spec, this.options)));
    }
    for (const name of [...this.handles.keys(), ...this.table.backends.keys()]) {
      if (seen.has(name)) continue;
      if (this.handles.has(name)) log.info({ backend: name }, 'server removed from the configuration: stopping it');
      stops.push(this.remove(name));
    }
    this.applied = true;
    this.table.configuration = {
      loaded: true,
      serverCount: config.servers.length,
      enabledCount: config.servers.filter((s) => !s.disabled).length,
      disabledCount: config.servers.filter((s) => s.disabled).length,
      authEnabled: false,
      transport: 'http',
    };
    await Promise.all(stops);
  }

  // An invalid entry is not started; a server already running from a good entry keeps running,
  // and its status says why its entry was not taken.
  private async applyInvalid(slot: ServerSlot): Promise<void> {
    const problems = (slot.problems ?? []).map(formatProblem);
    const running = this.handles.get(slot.name);
    if (running) {
      this.options.log.error({ backend: slot.name, code: invalidCode(slot), problems }, 'invalid server entry ignored: the last good configuration keeps running');
      running.state.entryError = invalidReason(slot);
      this.options.onFacts?.(slot.name);
      return;
    }
    this.options.log.error({ backend: slot.name, code: invalidCode(slot), problems }, 'invalid server entry: not started');
    const state = newBackendState(slot.name, slot.tags, null);
    state.phase = 'invalid';
    state.firstConnect = false;
    state.lastError = invalidReason(slot);
    state.lastErrorPublic = sanitize(state.lastError);
    this.table.backends.set(slot.name, state);
    this.options.onFacts?.(slot.name);
    this.options.onChange?.(slot.name);
  }

  private async replace(name: string, next: BackendHandle): Promise<void> {
    const previous = this.handles.get(name);
    this.handles.set(name, next);
    this.table.backends.set(name, next.state);
    this.options.onFacts?.(name);
    if (previous) this.options.onChange?.(name);
    if (previous) await this.retire(previous, 'replaced');
    next.start();
  }

  private async remove(name: string): Promise<void> {
    const handle = this.handles.get(name);
    this.handles.delete(name);
    const existed = this.table.backends.delete(name);
    if (existed) {
      this.options.onFacts?.(name);
      this.options.onChange?.(name);
    }
    if (handle) await this.retire(handle, 'removed');
  }

  private async retire(handle: BackendHandle, cause: StopCause): Promise<void> {
    this.stopping.add(handle);
    try {
      await handle.stop(cause);
    } finally {
      this.stopping.delete(handle);
    }
  }

  /** Every backend with a worker (to wire a hub that is new or back). */
  all(): Iterable<BackendHandle> {
    return this.handles.values();
  }

  /** Stops every backend in parallel (shutdown). */
  async stopAll(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map((h) => this.retire(h, 'stopped')));
  }

  /** SIGKILLs every backend's process group, and what left one, now (a failed or too slow shutdown, a second signal). */
  killAll(): void {
    const handles = [...this.handles.values(), ...this.stopping];
    // What left a backend's process group (setsid, a detached spawn) is not reached by the group's
    // signal: one walk of /proc finds it first (the process exits right after, so it cannot wait).
    const strays = descendantsOfAll(handles.flatMap((handle) => (handle.state.pid === null ? [] : [handle.state.pid])));
    for (const handle of handles) handle.kill();
    for (const { pid } of strays) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone already (with its group) */
      }
    }
  }

  handle(name: string): BackendHandle | undefined {
    return this.handles.get(name);
  }

  /** Names known to the configuration, with why a name has no running backend. */
  describe(name: string): 'running' | 'disabled' | 'invalid' | 'unknown' {
    if (this.handles.has(name)) return 'running';
    if (this.table.disabled.has(name)) return 'disabled';
    return this.table.backends.has(name) ? 'invalid' : 'unknown';
  }
}
