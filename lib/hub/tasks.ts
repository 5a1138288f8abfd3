// Tasks (issue 15): the shapes a backend's task takes towards each client era, and who owns
// which task. A 2025-11-25 backend creates a task when a call carries `params.task` and answers
// `{task}`; its status is read with `tasks/get`, its result with `tasks/result`. The 2026-07-28
// Tasks extension (`io.modelcontextprotocol/tasks`) answers a call with `resultType: "task"` and
// the task's fields inline; `tasks/get` carries the result once it is done (no `tasks/result`).
// The gateway serves a 2025 backend's tasks to both client eras. A 2026-07-28 backend's own
// tasks are not passed on: the SDK client (2.4.0) in its worker refuses a `resultType: "task"`
// answer and will not send `tasks/get` to a 2026-07-28 server, so such a backend is never told
// that a client takes tasks. Pure code: the router does the routing.
import { isPlainObject } from '../shared/plain-object.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The `_meta` key that ties a message to a task (2025-11-25). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

type Json = Record<string, unknown>;

/** The backend's task of a 2025-11-25 `CreateTaskResult` (`{task: {...}}`), or null. */
export function createdTask2025(result: Json): Json | null {
  return isPlainObject(result.task) && typeof result.task.taskId === 'string' ? result.task : null;
}

/** Whether a result is a 2026-07-28 `CreateTaskResult` (`resultType: "task"`). */
export function isCreatedTask2026(result: Json): boolean {
  return result.resultType === 'task' && typeof result.taskId === 'string';
}

/** Client capabilities without the Tasks extension (for a backend whose tasks cannot be passed on). */
export function withoutTasksExtension(capabilities: Json): Json {
  const extensions = capabilities.extensions;
  if (!isPlainObject(extensions) || !(TASKS_EXTENSION in extensions)) return capabilities;
  const { [TASKS_EXTENSION]: _tasks, ...rest } = extensions;
  return { ...capabilities, extensions: rest };
}

/** A 2025-11-25 task (`ttl`, `pollInterval`) as the 2026-07-28 extension spells it (`ttlMs`, `pollIntervalMs`). */
export function modernTask(task: Json, taskId: string): Json {
  const { ttl, pollInterval, taskId: _backendId, ...rest } = task;
  return { ...rest, taskId, ttlMs: typeof ttl === 'number' ? ttl : null, ...(typeof pollInterval === 'number' ? { pollIntervalMs: pollInterval } : {}) };
}

/** `_meta` with the related task named by the client-facing id (or as it was, when it names none). */
export function withRelatedTask(result: Json, taskId: string): Json {
  const meta = result._meta;
  if (!isPlainObject(meta) || !isPlainObject(meta[RELATED_TASK])) return result;
  return { ...result, _meta: { ...meta, [RELATED_TASK]: { ...meta[RELATED_TASK], taskId } } };
}

/** What a 2026-07-28 client declared in its per-request capabilities: whether it takes tasks. */
export function takesTasks(clientCapabilities: Json | undefined): boolean {
  const extensions = clientCapabilities?.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** A 2025 session (or stdio connection) that creates tasks: they are its alone, and it hears their status. */
export type TaskOwner = { taskStatus(params: Json): void };

const keyOf = (backend: string, taskId: string) => `${backend}\u0000${taskId}`;

/**
 * Which 2025 session created which backend task, so that another session can neither read nor
 * list nor cancel it, and a status notification reaches its creator only. 2026-07-28 requests
 * belong to no session: there the signed task id is the only key.
 */
export class TaskOwners {
  private readonly owners = new Map<string, TaskOwner>();

  claim(owner: TaskOwner, backend: string, taskId: string): void {
    this.owners.set(keyOf(backend, taskId), owner);
  }

  ownerOf(backend: string, taskId: string): TaskOwner | undefined {
    return this.owners.get(keyOf(backend, taskId));
  }

  /** A session ended: its tasks are nobody's (the backend ends them by their ttl). */
  drop(owner: TaskOwner): void {
    for (const [key, value] of this.owners) if (value === owner) this.owners.delete(key);
  }

  /** A backend left the configuration or restarted: its tasks are gone. */
  forget(backend: string): void {
    const prefix = `${backend}\u0000`;
    for (const key of this.owners.keys()) if (key.startsWith(prefix)) this.owners.delete(key);
  }

  get size(): number {
    return this.owners.size;
  }
}
