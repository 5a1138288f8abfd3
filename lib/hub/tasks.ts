// Tasks (issue 15): the shapes a backend's task takes towards each client era, and who owns
// which task. A 2025-11-25 backend creates a task when a call carries `params.task` and answers
// `{task}`; its status is read with `tasks/get`, its result with `tasks/result`. The 2026-07-28
// Tasks extension (`io.modelcontextprotocol/tasks`) answers a call with `resultType: "task"` and
// the task's fields inline; `tasks/get` carries the result once it is done (no `tasks/result`).
// The gateway serves a 2025 backend's tasks to both client eras, and a 2026-07-28 backend's to
// 2026-07-28 clients (the worker carries them past the SDK's client: backend/task-handles.ts).
// Pure code: the router does the routing.
import { isPlainObject } from '../shared/plain-object.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type Json = Record<string, unknown>;

/** The statuses a task does not leave. */
export const isTerminal = (status: unknown) => status === 'completed' || status === 'failed' || status === 'cancelled';

/** The backend's task of a 2025-11-25 `CreateTaskResult` (`{task: {...}}`), or null. */
export function createdTask2025(result: Json): Json | null {
  return isPlainObject(result.task) && typeof result.task.taskId === 'string' ? result.task : null;
}

/** Whether a result is a 2026-07-28 `CreateTaskResult` (`resultType: "task"`). */
export function isCreatedTask2026(result: Json): boolean {
  return result.resultType === 'task' && typeof result.taskId === 'string';
}

/** A 2025-11-25 task (`ttl`, `pollInterval`) as the 2026-07-28 extension spells it (`ttlMs`, `pollIntervalMs`). */
export function modernTask(task: Json, taskId: string): Json {
  const { ttl, pollInterval, taskId: _backendId, ...rest } = task;
  return { ...rest, taskId, ttlMs: typeof ttl === 'number' ? ttl : null, ...(typeof pollInterval === 'number' ? { pollIntervalMs: pollInterval } : {}) };
}

/** What a 2026-07-28 client declared in its per-request capabilities: whether it takes tasks. */
export function takesTasks(clientCapabilities: Json | undefined): boolean {
  const extensions = clientCapabilities?.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** A 2025 session (or stdio connection) that creates tasks: they are its alone, and it hears their status. */
export type TaskOwner = { taskStatus(params: Json): void };

/** A backend's task: backend `b`, worker `w`, connection `c`, the backend's own task id `t`. */
export type OwnedTask = { b: string; w: number; c: number; t: string };

/** How many owned tasks a hub remembers; the oldest are forgotten first. */
export const MAX_OWNED_TASKS = 10_000;

const keyOf = (task: OwnedTask) => `${task.b}\u0000${task.w}\u0000${task.c}\u0000${task.t}`;

/**
 * Which 2025 session created which backend task, so that another session can neither read nor
 * list nor cancel it, and a status notification reaches its creator only. Keyed by the
 * backend's connection too: a backend that restarts may hand out the same ids again.
 * 2026-07-28 requests belong to no session: there the signed task id is the only key.
 */
export class TaskOwners {
  private readonly tasks = new Map<string, { owner: TaskOwner; task: OwnedTask; running: boolean }>();
  private readonly byOwner = new Map<TaskOwner, Set<string>>();

  constructor(private readonly max = MAX_OWNED_TASKS) {}

  claim(owner: TaskOwner, task: OwnedTask, running = true): void {
    const key = keyOf(task);
    this.remove(key);
    this.tasks.set(key, { owner, task, running });
    const keys = this.byOwner.get(owner) ?? new Set<string>();
    keys.add(key);
    this.byOwner.set(owner, keys);
    for (const oldest of this.tasks.keys()) {
      if (this.tasks.size <= this.max) break;
      this.remove(oldest);
    }
  }

  ownerOf(task: OwnedTask): TaskOwner | undefined {
    return this.tasks.get(keyOf(task))?.owner;
  }

  /** The task reached a terminal status: a restart of its backend no longer fails it. */
  settled(task: OwnedTask): void {
    const entry = this.tasks.get(keyOf(task));
    if (entry) entry.running = false;
  }

  private remove(key: string): void {
    const entry = this.tasks.get(key);
    if (!entry) return;
    this.tasks.delete(key);
    const keys = this.byOwner.get(entry.owner);
    keys?.delete(key);
    if (keys?.size === 0) this.byOwner.delete(entry.owner);
  }

  /** A session ended: its tasks are nobody's (the backend ends them by their ttl). */
  drop(owner: TaskOwner): void {
    for (const key of this.byOwner.get(owner) ?? []) this.tasks.delete(key);
    this.byOwner.delete(owner);
  }

  /**
   * The backend now runs on worker `w`, connection `c`: the tasks of its earlier connections
   * are gone. Returns those that were still running.
   */
  lostTo(backend: string, w: number, c: number): { owner: TaskOwner; task: OwnedTask }[] {
    const gone = [...this.tasks.entries()].filter(([, { task }]) => task.b === backend && (task.w !== w || task.c !== c));
    for (const [key] of gone) this.remove(key);
    return gone.filter(([, entry]) => entry.running).map(([, { owner, task }]) => ({ owner, task }));
  }

  /** A backend left the configuration: its tasks are gone. */
  forget(backend: string): void {
    for (const [key, { task }] of [...this.tasks.entries()]) if (task.b === backend) this.remove(key);
  }

}
