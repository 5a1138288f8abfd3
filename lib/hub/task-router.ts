// Routes tasks (issue 15): a 2025-11-25 backend's tasks, served to 2025 clients as they are and
// to 2026-07-28 clients through the Tasks extension, and a 2026-07-28 backend's extension tasks
// to 2026-07-28 clients (shapes and ownership: tasks.ts). The router hands over its way to a
// backend (`send`, which turns failures into sanitized MCP errors).
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { BackendState } from '../shared/backend-state.ts';
import type { BackendMethod, CallOutcome, InputMethod, InputOutcome } from '../shared/messages/calls.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import { sanitize } from '../shared/sanitize.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { Catalog } from './catalog.ts';
import type { TaskIdCodec, TaskRef } from './task-ids.ts';
import { RELATED_TASK, relatedTaskOf, withRelatedTask } from '../shared/related-task.ts';
import { createdTask2025, isCreatedTask2026, isTerminal, modernTask, takesTasks, type TaskOwner, type TaskOwners, TASKS_EXTENSION } from './tasks.ts';
import { qualifyToolResult } from './uri-rewrite.ts';

type Json = Record<string, unknown>;

type Outcome = CallOutcome | { parked: { parkId: number; method: InputMethod; params: Json } };
type Asking = { session?: object; relatedTask?: string; onInputRequest?: (method: InputMethod, params: Json) => Promise<{ park: true }> };

/** What the task router needs of a backend's link: where its tasks live, and the way to their questions. */
export type TaskLink = {
  readonly worker: number;
  readonly connection: number;
  request(method: BackendMethod, params: Json, extra: Asking): Promise<Outcome>;
  resume(parkId: number, answer: InputOutcome, extra: Asking): Promise<Outcome>;
  parkedFor(taskId: string): Promise<Outcome>;
};

/** What the task router reads of a client request. */
export type TaskExtra = {
  /** The client speaks 2026-07-28. */
  modern?: boolean;
  /** The 2025 session (or stdio connection) that owns the tasks it creates. */
  taskOwner?: TaskOwner;
  /** A 2025 client's `params.task`. */
  taskRequest?: Json;
  clientCapabilities?: Json;
  /** A tasks/result waits for this backend task, known to the client as clientTaskId (link-types.ts). */
  relatedTask?: string;
  clientTaskId?: string;
};

export type TaskTarget<L extends TaskLink> = { backend: BackendState; name: string; link: L };
type Located<L extends TaskLink> = TaskTarget<L> & { ref: TaskRef };

/** The task methods a client can send (`tasks/list` is answered by `list`). */
export type TaskMethod = 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';

export type TaskRouterOptions<L extends TaskLink, E extends TaskExtra> = {
  catalog: Catalog;
  links: (name: string) => L | undefined;
  taskIds: TaskIdCodec;
  taskOwners: TaskOwners;
  send: (target: TaskTarget<L>, method: BackendMethod, params: Json, extra: E) => Promise<Json>;
  unavailable: (backend: BackendState) => ProtocolError;
};

/** A 2026-07-28 backend: its tasks are the extension's. */
export const isModernBackend = (backend: BackendState) => backend.protocolVersion !== null && backend.protocolVersion >= '2026';
// How many pages of one backend's tasks/list are read for one client's tasks/list.
const MAX_TASK_LIST_PAGES = 20;
// How long a tasks/get waits for a 2025 task's question to arrive before it answers `working`.
const QUESTION_WAIT_MS = 2_000;
/** The inputRequests key of a parked question of a task (unique over the task's life). */
const inputKey = (parkId: number) => `input-${parkId}`;
/** A backend question parked in its worker. */
type Question = { parkId: number; method: InputMethod; params: Json };
// A call on behalf of no client session that waits in a task: that task's questions park in the worker.
const parkingQuestionsOf = (backendTaskId: string): Asking => ({ session: {}, relatedTask: backendTaskId, onInputRequest: async () => ({ park: true }) });

const unknownTask = (why: string, taskId: unknown) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${why}`, { taskId });
const needsExtension = (what: string) =>
  new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `${what}: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });

export class TaskRouter<L extends TaskLink, E extends TaskExtra> {
  // Tasks whose tasks/result this hub runs in the background to take their question.
  private readonly fetching = new Set<string>();

  constructor(private readonly options: TaskRouterOptions<L, E>) {}

  // The client-facing id of a backend's task on `link`'s connection; `owned` marks a 2025 session's.
  private idOf(backend: string, link: { worker: number; connection: number }, taskId: string, owned: boolean): string {
    return this.options.taskIds.mint({ b: backend, w: link.worker, c: link.connection, t: taskId, ...(owned ? { s: 1 } : {}) });
  }

  /**
   * Whether a tools/call runs as a 2025-11-25 task: its 2025 client asked for one, or a
   * 2026-07-28 client that takes tasks calls a tool its 2025 backend runs only as a task (the
   * extension lets the server decide, so a tool that may run either way runs as a plain call).
   */
  augmentation(target: TaskTarget<L>, qualified: string, extra: E): Json | undefined {
    const asked = extra.modern ? undefined : extra.taskRequest; // `task` is not 2026-07-28 vocabulary
    if (isModernBackend(target.backend)) {
      if (asked) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${qualified} does not run as a 2025-11-25 task: backend '${target.backend.name}' speaks 2026-07-28`, { tool: qualified });
      return undefined;
    }
    if (asked) return asked;
    if (!extra.modern) return undefined;
    const tool = target.backend.inventory?.tools.find((t) => t.name === target.name) as { execution?: { taskSupport?: unknown } } | undefined;
    if (tool?.execution?.taskSupport !== 'required') return undefined;
    if (!takesTasks(extra.clientCapabilities)) throw needsExtension(`Tool ${qualified} runs only as a task`);
    return {};
  }

  /** A backend's new task: its id becomes ours, a 2025 session owns it, each era gets its shape. */
  adopt(target: TaskTarget<L>, result: Json, extra: E): Json | null {
    // A 2026-07-28 handle is the task itself (only a client that declared the extension gets one).
    const extension = isCreatedTask2026(result);
    const task = extension ? result : createdTask2025(result);
    if (!task) return null;
    const name = target.backend.name;
    const ref = { b: name, w: target.link.worker, c: target.link.connection, t: task.taskId as string };
    if (extra.taskOwner) this.options.taskOwners.claim(extra.taskOwner, ref, !isTerminal(task.status));
    const taskId = this.idOf(name, target.link, ref.t, extra.taskOwner !== undefined);
    if (extension) return { ...result, taskId };
    return extra.modern ? { resultType: 'task', ...modernTask(task, taskId) } : { ...result, task: { ...task, taskId } };
  }

  // The backend, worker and connection a client's task id names; refused when it is not this
  // service's, not this client's, or its backend restarted since.
  private target(taskId: unknown, filter: BackendFilter, extra: E): Located<L> {
    let ref: TaskRef;
    try {
      ref = this.options.taskIds.open(taskId);
    } catch (error) {
      throw unknownTask((error as Error).message, taskId);
    }
    const owner = extra.taskOwner;
    if (!owner && ref.s === 1) throw unknownTask('it belongs to a 2025 session', taskId);
    const backend = this.options.catalog.backend(ref.b, filter);
    if (!backend) throw unknownTask(`backend '${ref.b}' is not configured`, taskId);
    const link = this.options.links(ref.b);
    if (!link) throw this.options.unavailable(backend);
    // Before ownership: the owners of a restarted backend's tasks were let go when it reconnected.
    if (link.worker !== ref.w || link.connection !== ref.c) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Backend '${ref.b}' restarted since it created this task: the task and its result are lost; call the tool again`, { backend: ref.b, reason: 'restarted', taskId });
    }
    if (owner && this.options.taskOwners.ownerOf(ref) !== owner) throw unknownTask('this session did not create it', taskId);
    return { backend, name: ref.t, link, ref };
  }

  /** `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/update` (with the client's `inputResponses`): to the backend that created the task. */
  async request(method: TaskMethod, params: Json, filter: BackendFilter, extra: E): Promise<Json> {
    if (extra.modern && !takesTasks(extra.clientCapabilities)) throw needsExtension(`${method} is part of the Tasks extension`);
    const taskId = params.taskId as string;
    const target = this.target(taskId, filter, extra);
    const forward = { ...params, taskId: target.ref.t };
    if (isModernBackend(target.backend)) return this.extensionTask(method, target, forward, taskId, extra);
    if (extra.modern) return this.modernView(method, target, forward, taskId, extra);
    if (method === 'tasks/update') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    // The task's questions, which come while its tasks/result waits, are this call's: shown with the client's task id.
    const result = await this.options.send(target, method, forward, { ...extra, relatedTask: target.ref.t, clientTaskId: taskId });
    if (extra.taskOwner && isTerminal(result.status)) this.options.taskOwners.settled(target.ref);
    // The gateway's own mark: the backend's named its task id (and envelope keys are not passed on).
    if (method === 'tasks/result') return { ...qualifyToolResult(target.backend.name, result), _meta: { ...(isPlainObject(result._meta) ? result._meta : {}), [RELATED_TASK]: { taskId } } };
    return { ...result, taskId };
  }

  // A 2026-07-28 backend's task (the extension): forwarded as it is, under the backend's own id.
  private async extensionTask(method: TaskMethod, target: Located<L>, forward: Json, taskId: string, extra: E): Promise<Json> {
    if (!extra.modern || method === 'tasks/result') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Backend '${target.backend.name}' runs 2026-07-28 tasks: poll tasks/get, which carries the result`, { taskId });
    const result = await this.options.send(target, method, forward, extra);
    if (method !== 'tasks/get') return result;
    return { ...result, taskId, ...(isPlainObject(result.result) ? { result: qualifyToolResult(target.backend.name, result.result) } : {}) };
  }

  // A 2026-07-28 client follows a 2025 backend's task: tasks/get carries the result once the
  // task is done (read with the backend's tasks/result); cancel is acknowledged empty.
  private async modernView(method: TaskMethod, target: Located<L>, forward: Json, taskId: string, extra: E): Promise<Json> {
    const name = target.backend.name;
    if (method === 'tasks/cancel') {
      await this.options.send(target, 'tasks/cancel', forward, extra);
      return {};
    }
    if (method === 'tasks/update') return this.answer(target, forward);
    const { _meta: _dropped, ...status } = await this.options.send(target, 'tasks/get', forward, extra);
    const task = modernTask(status, taskId);
    if (status.status === 'input_required') {
      // Its question comes with tasks/result, which this era does not have: the gateway takes it
      // and shows it as the extension's inputRequests; tasks/update answers it.
      const question = await this.question(target);
      // Marked with the client's id of the task, not the backend's.
      if (question && 'parkId' in question) return { ...task, inputRequests: { [inputKey(question.parkId)]: { method: question.method, params: relatedTaskOf(question.params) === undefined ? question.params : withRelatedTask(question.params, taskId) } } };
      if (question) return { ...task, status: 'completed', result: qualifyToolResult(name, question.result) };
      return { ...task, status: 'working' };
    }
    if (status.status !== 'completed' && status.status !== 'failed') return task;
    // A tool's own failure (isError) is a result: `completed`; only a JSON-RPC error is `failed`.
    try {
      const { _meta: _related, ...result } = await this.options.send(target, 'tasks/result', forward, extra);
      return { ...task, status: 'completed', result: qualifyToolResult(name, result) };
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return { ...task, status: 'failed', error: { code: error.code, message: sanitize(error.message), ...(error.data !== undefined ? { data: error.data } : {}) } };
    }
  }

  // The question a 2025 task waits on: parked in the worker already, or taken now by a tasks/result
  // run in the background (its question parks there; its outcome is not needed: tasks/get reads
  // the result again). Null when none came within QUESTION_WAIT_MS; the result if the task ended.
  private async question(target: Located<L>): Promise<Question | { result: Json } | null> {
    const backendTaskId = target.ref.t;
    const parked = await this.parked(target);
    if (parked) return parked;
    const key = `${target.backend.name}\u0000${backendTaskId}`;
    if (this.fetching.has(key)) return null;
    this.fetching.add(key);
    const running = target.link
      .request('tasks/result', { taskId: backendTaskId }, parkingQuestionsOf(backendTaskId))
      .finally(() => this.fetching.delete(key));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<null>((resolve) => (timer = setTimeout(resolve, QUESTION_WAIT_MS, null)));
    const first = await Promise.race([running, waited]).finally(() => clearTimeout(timer));
    if (first === null) return null;
    if ('parked' in first) return first.parked;
    return first.ok ? { result: first.result } : null;
  }

  // tasks/update from a 2026-07-28 client: the answer to the task's parked question resumes the
  // backend (whose tasks/result goes on in the background); the acknowledgement does not wait.
  private async answer(target: Located<L>, forward: Json): Promise<Json> {
    const responses = isPlainObject(forward.inputResponses) ? forward.inputResponses : {};
    const parked = await this.parked(target);
    // Keys that are not outstanding are ignored (the extension says so).
    const answer = parked ? responses[inputKey(parked.parkId)] : undefined;
    if (!parked || !isPlainObject(answer)) return {};
    void target.link.resume(parked.parkId, { ok: true, result: answer }, parkingQuestionsOf(target.ref.t));
    return {};
  }

  // The question of the task parked in its backend's worker, if there is one.
  private async parked(target: Located<L>): Promise<Question | null> {
    const outcome = await target.link.parkedFor(target.ref.t);
    return 'ok' in outcome && outcome.ok && typeof outcome.result.parkId === 'number' ? (outcome.result as Question) : null;
  }

  /** `tasks/list` of a 2025 session: the tasks it created, on every backend it sees that lists tasks. */
  async list(filter: BackendFilter, extra: E): Promise<{ tasks: Json[] }> {
    const owner = extra.taskOwner;
    const tasks: Json[] = [];
    if (!owner) return { tasks };
    for (const backend of this.options.catalog.connected(filter)) {
      const offered = backend.capabilities?.tasks;
      const link = this.options.links(backend.name);
      if (!link || isModernBackend(backend) || !isPlainObject(offered) || !isPlainObject(offered.list)) continue;
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_TASK_LIST_PAGES; pages++) {
        let page: Json;
        try {
          page = await this.options.send({ backend, name: '', link }, 'tasks/list', cursor ? { cursor } : {}, extra);
        } catch {
          break; // one backend failing to list hides its tasks only
        }
        for (const task of Array.isArray(page.tasks) ? page.tasks : []) {
          if (!isPlainObject(task) || typeof task.taskId !== 'string') continue;
          if (this.options.taskOwners.ownerOf({ b: backend.name, w: link.worker, c: link.connection, t: task.taskId }) !== owner) continue;
          tasks.push({ ...task, taskId: this.idOf(backend.name, link, task.taskId, true) });
        }
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
        if (!cursor) break;
      }
    }
    return { tasks };
  }

  /** A backend's task changed status (2025-11-25 `notifications/tasks/status`): its creator hears it. */
  status(backend: string, params: Json): void {
    const link = this.options.links(backend);
    if (typeof params.taskId !== 'string' || !link) return;
    const task = { b: backend, w: link.worker, c: link.connection, t: params.taskId };
    const owner = this.options.taskOwners.ownerOf(task);
    if (!owner) return;
    if (isTerminal(params.status)) this.options.taskOwners.settled(task);
    owner.taskStatus({ ...params, taskId: this.idOf(backend, link, params.taskId, true) });
  }

  /** A session ended: its tasks are nobody's. */
  dropOwner(owner: TaskOwner): void {
    this.options.taskOwners.drop(owner);
  }

  /**
   * A backend connected anew (`connection` on worker `worker`): the tasks its sessions created
   * before are gone. The owner of each one still running is told it failed; returns how many.
   */
  reconnected(backend: string, worker: number, connection: number): number {
    const lost = this.options.taskOwners.lostTo(backend, worker, connection);
    const now = new Date().toISOString();
    for (const { owner, task } of lost) {
      const taskId = this.idOf(backend, { worker: task.w, connection: task.c }, task.t, true);
      owner.taskStatus({ taskId, status: 'failed', statusMessage: `Backend '${backend}' restarted: the task and its result are lost; call the tool again`, createdAt: now, lastUpdatedAt: now, ttl: null });
    }
    return lost.length;
  }
}
