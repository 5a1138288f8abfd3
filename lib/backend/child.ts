import { setTimeout as delay } from 'node:timers/promises';
import type { Readable, Writable } from 'node:stream';
import { execa } from 'execa';
import type { ExitInfo } from '../shared/messages/state-events.ts';
import type { StdioSpec } from '../config/types.ts';
import { groupAlive, groupGone, killTree } from './process-tree.ts';
import { descendantsOf, killSeen } from '../shared/proc-stat.ts';
import { signalGroup } from '../shared/process-group.ts';

// How long a stop waits for the rest of a killed group (a wrapper's grandchildren) to be gone.
const GROUP_GONE_MS = 2_000;
// How often a stop looks whether the group of a reaped child is empty (a walk of /proc).
const GROUP_POLL_MS = 100;

export type ChildExit = ExitInfo & { spawnError: Error | null };

export type SpawnedChild = {
  pid: number | null;
  stdin: Writable;
  stdout: Readable;
  /** Present when stderr is captured (`pipe`). */
  stderr: Readable | null;
  /** Resolves once when the process has exited (and its pipes closed) or failed to spawn. */
  exited: Promise<ChildExit>;
  /** Resolves as soon as the process is reaped, before its pipes close: from then on its pid may be reused. */
  reaped: Promise<void>;
  /**
   * Polite then forceful stop (decisions §2): close stdin, SIGTERM the group, SIGKILL the tree.
   * Resolves once the child is reaped and nothing of its group runs. Later calls share the first.
   */
  stop(graceMs: number): Promise<void>;
  /** SIGKILL to the group at once, even during a polite stop; resolves once the child is reaped. */
  kill(): Promise<void>;
};

// Spawns a stdio backend in its own process group, with exactly the environment it was given.
export function spawnChild(spec: StdioSpec): SpawnedChild {
  const subprocess = execa(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    stdin: 'pipe',
    stdout: 'pipe',
    // A file descriptor number passes through; execa types it as an fd-number option too.
    stderr: spec.stderr as 'pipe',
    detached: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    windowsHide: true,
  });
  const pid = subprocess.pid ?? null;
  let done = false;
  const exited = subprocess.then((result) => {
    done = true;
    const spawnError = result.failed && result.exitCode === undefined && !result.signal ? (result.cause instanceof Error ? result.cause : new Error(result.message)) as Error : null;
    return { code: result.exitCode ?? null, signal: result.signal ?? null, at: Date.now(), pid, spawnError };
  });

  // A grandchild that holds the pipes keeps `exited` waiting after the child itself is gone.
  const reaped = new Promise<void>((resolve) => {
    subprocess.once('exit', () => resolve());
    void exited.then(() => resolve());
  });

  // True once the child has ended: its pipes closed, or it is reaped and nothing of its group runs
  // (a process out of the group may hold the pipes: it is ended by pid, not waited for); false after `ms`.
  async function waitFor(ms: number): Promise<boolean> {
    if (done) return true;
    const ac = new AbortController();
    const groupEnded = async () => {
      await reaped;
      while (!ac.signal.aborted && pid !== null && groupAlive(pid)) await delay(GROUP_POLL_MS);
      return true;
    };
    const finished = await Promise.race([exited.then(() => true), groupEnded(), delay(ms, false, { signal: ac.signal }).catch(() => false)]);
    ac.abort();
    return finished;
  }

  async function stop(graceMs: number): Promise<void> {
    // Seen before anything ends: a descendant that left the group (its own session) is ended by pid at the end.
    const tree = pid === null ? [] : descendantsOf(pid);
    subprocess.stdin.end();
    if (pid === null) return void (await exited);
    if (!(await waitFor(graceMs))) {
      signalGroup(pid, 'SIGTERM');
      if (!(await waitFor(graceMs))) await killTree(pid);
    }
    // Whatever the direct child left in its group (a wrapper's grandchild) goes too.
    signalGroup(pid, 'SIGKILL');
    await reaped;
    await groupGone(pid, GROUP_GONE_MS);
    // Before the pipes close: a descendant out of the group may hold them, and `exited` waits for them.
    killSeen(tree);
    await exited;
  }

  let stopping: Promise<void> | null = null;
  return {
    pid,
    stdin: subprocess.stdin,
    stdout: subprocess.stdout,
    stderr: subprocess.stderr ?? null,
    exited,
    reaped,
    stop: (graceMs) => (stopping ??= stop(graceMs)),
    async kill() {
      const tree = pid === null ? [] : descendantsOf(pid);
      if (pid !== null) signalGroup(pid, 'SIGKILL');
      killSeen(tree);
      await exited;
    },
  };
}
