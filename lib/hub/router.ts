// Routes client requests to the owning backend's worker, turning every failure into an MCP
// error that names what went wrong, and client-facing names into the backend's and back.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Catalog } from './catalog.ts';
import { isToolDisabled } from '../shared/tool-policy.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { BackendMethod, CallOutcome, InputMethod, InputOutcome, ProgressParams } from '../shared/messages/calls.ts';
import type { RequestStatePayload, StateCodec } from './request-state.ts';
import type { ResourceSubscriptions, Subscriber } from './subscriptions.ts';
import type { BackendState } from '../shared/backend-state.ts';
import { firstConnectInProgress, serverStatus } from '../shared/status.ts';
import { sanitize } from '../shared/sanitize.ts';
import { splitQualified } from '../shared/names.ts';
import { qualifyPromptResult, qualifyReadResult, qualifyToolResult } from './uri-rewrite.ts';
import type { TaskIdCodec, TaskRef } from './task-ids.ts';
import { createdTask2025, modernTask, takesTasks, TASKS_EXTENSION, type TaskOwner, type TaskOwners, withoutTasksExtension, withRelatedTask } from './tasks.ts';
import { isPlainObject } from '../shared/plain-object.ts';

/** How the session answers a backend's question: now, or by its call's own answer (input_required). */
export type InputAnswer = { answer: InputOutcome } | { park: true };

/** What goes with one call to a backend. */
export type CallExtra = {
  signal?: AbortSignal;
  onProgress?: (progress: ProgressParams) => void;
  /** What the client behind the call can answer (for 2026-07-28 backends). */
  clientCapabilities?: Record<string, unknown>;
  /** The client session the call belongs to (one object per 2025 session or stdio connection). */
  session?: object;
  /** The backend asks this call's client something (elicitation, sampling). */
  onInputRequest?: (method: InputMethod, params: Record<string, unknown>) => Promise<InputAnswer>;
};

/** A call's outcome, or its question parked in the backend's worker until a retry answers it. */
export type LinkOutcome = CallOutcome | { parked: { parkId: number; method: InputMethod; params: Record<string, unknown> } };

export type RouteExtra = CallExtra & {
  /**
   * Where the backend's logging messages may go while the request runs: the client session
   * that made it (2025 clients). Omitted for clients that take no log messages.
   */
  logSink?: { session: object; deliver: (params: Record<string, unknown>) => void };
  /** A retry after input_required: the verified state and the client's answers. */
  retry?: { state: RequestStatePayload; inputResponses: Record<string, unknown> };
  /** The client speaks 2026-07-28 (each request stands alone). */
  modern?: boolean;
  /** The 2025 session or stdio connection that owns the tasks this request creates (none for 2026-07-28). */
  taskOwner?: TaskOwner;
  /** A 2025 client's `params.task`: run the call as a task. */
  taskRequest?: Record<string, unknown>;
};

/** The task methods a client can send (`tasks/list` is answered by the router itself). */
export type TaskMethod = 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';

// A 2026-07-28 backend (tasks through the extension) or a 2025 one (tasks in core).
const isModernBackend = (backend: BackendState) => backend.protocolVersion !== null && backend.protocolVersion >= '2026';
// How many pages of one backend's tasks/list are read for one client's tasks/list.
const MAX_TASK_LIST_PAGES = 20;

/** What the router needs of one backend: its worker, reached by request. */
export interface BackendLink {
  /** The backend's worker (a question parked in an older one is void). */
  readonly worker: number;
  /** The worker's current connection to the backend (a task of an older one is gone). */
  readonly connection: number;
  /** Never rejects: failures come back as `{ok: false, error}`. */
  request(method: BackendMethod, params: Record<string, unknown>, extra: CallExtra): Promise<LinkOutcome>;
  /** A retry that answers a parked question. */
  resume(parkId: number, answer: InputOutcome, extra: CallExtra): Promise<LinkOutcome>;
  subscribe(uri: string): Promise<LinkOutcome>;
  unsubscribe(uri: string): void;
}

/** The key of the one question a parked call asks its client. */
export const INPUT_KEY = 'input';

/** The start-up wait (issue 12): requests for a backend on its first connect wait for the initial load. */
export interface InitialLoadGate {
  /** Resolves when every enabled backend's first attempt ended, or the initial wait is over. */
  settled(): Promise<void>;
  isSettled(): boolean;
}

export type RouterOptions = {
  catalog: Catalog;
  links: (name: string) => BackendLink | undefined;
  /** A backend log message no single session can be given: the service log takes it. */
  logUnrouted: (backend: string, params: Record<string, unknown>) => void;
  initialLoad?: InitialLoadGate;
  /** Signs the requestState of input_required answers. */
  stateCodec: StateCodec;
  /** How long a client may take to answer a backend's question (`--input-timeout`), ms. */
  inputTimeoutMs: number;
  /** Who is subscribed to which backend resource. */
  subscriptions: ResourceSubscriptions;
  /** Signs the task ids clients see. */
  taskIds: TaskIdCodec;
  /** Which 2025 session created which task. */
  taskOwners: TaskOwners;
};

type Kind = 'tool' | 'prompt' | 'resource';
type Target = { backend: BackendState; name: string; link: BackendLink };

// Reserved `io.modelcontextprotocol/*` _meta keys describe the backend's own envelope (its
// serverInfo, protocol version): they are not ours to pass on to the client.
function withoutEnvelope(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith('io.modelcontextprotocol/')));
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length ? { ...rest, _meta: kept } : rest;
}

export class Router {
  // Per backend, the sessions with calls in flight there (and how many): a backend's log
  // message goes to a session only when it is the only one (one user's activity must not
  // reach another).
  private readonly inflight = new Map<string, Map<object, { calls: number; deliver: (params: Record<string, unknown>) => void }>>();

  constructor(private readonly options: RouterOptions) {}

  /** Checks the requestState a retry echoes (the client-facing Server's verify hook). */
  get stateCodec(): StateCodec {
    return this.options.stateCodec;
  }

  get inputTimeoutMs(): number {
    return this.options.inputTimeoutMs;
  }

  /** A backend's logging message: to the one session using that backend, else to the service log. */
  backendLog(backend: string, params: Record<string, unknown>): void {
    const sessions = this.inflight.get(backend);
    if (sessions?.size === 1) {
      for (const { deliver } of sessions.values()) deliver(params);
      return;
    }
    this.options.logUnrouted(backend, params);
  }

  private unknown(kind: Kind, name: string): ProtocolError {
    const label = kind === 'resource' ? 'resource' : kind;
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown ${label}: ${name}`, { [kind === 'resource' ? 'uri' : kind]: name });
  }

  private unavailable(backend: BackendState): ProtocolError {
    return new ProtocolError(ProtocolErrorCode.InternalError, `Backend '${backend.name}' is not connected (status: ${serverStatus(backend)})`, {
      backend: backend.name,
      status: serverStatus(backend),
    });
  }

  // During the initial load, a backend still on its first connect is waited for.
  private async resolve(qualified: string, filter: BackendFilter): Promise<ReturnType<Catalog['resolve']>> {
    const found = this.options.catalog.resolve(qualified, filter);
    const gate = this.options.initialLoad;
    if ('error' in found && found.error === 'unavailable' && gate && !gate.isSettled() && firstConnectInProgress(found.backend)) {
      await gate.settled();
      return this.options.catalog.resolve(qualified, filter);
    }
    return found;
  }

  private async target(kind: Kind, qualified: string, filter: BackendFilter): Promise<Target> {
    const found = await this.resolve(qualified, filter);
    if ('error' in found) {
      if (found.error === 'unavailable') throw this.unavailable(found.backend);
      throw this.unknown(kind, qualified);
    }
    const inventory = found.backend.inventory;
    const known =
      kind === 'tool'
        ? inventory?.tools.some((t) => t.name === found.name)
        : kind === 'prompt'
          ? inventory?.prompts.some((p) => p.name === found.name)
          : true; // resource URIs may come from templates: the backend decides
    if (!known) throw this.unknown(kind, qualified);
    if (kind === 'tool' && isToolDisabled(found.backend.name, found.name, found.backend.toolPolicy)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${qualified} is disabled by mcpServers.${found.backend.name}.disabledTools; enable it with \`agent mcp tools enable ${found.backend.name} ${found.name}\``,
        { tool: qualified, disabled: true },
      );
    }
    const link = this.options.links(found.backend.name);
    if (!link) throw this.unavailable(found.backend);
    return { ...found, link };
  }

  private track(backend: string, sink: NonNullable<RouteExtra['logSink']>): () => void {
    let sessions = this.inflight.get(backend);
    if (!sessions) this.inflight.set(backend, (sessions = new Map()));
    const entry = sessions.get(sink.session) ?? { calls: 0, deliver: sink.deliver };
    entry.calls++;
    sessions.set(sink.session, entry);
    return () => {
      if (--entry.calls > 0) return;
      sessions.delete(sink.session);
      if (sessions.size === 0) this.inflight.delete(backend);
    };
  }

  private async send(target: Target, method: BackendMethod, params: Record<string, unknown>, extra: RouteExtra): Promise<Record<string, unknown>> {
    const name = target.backend.name;
    const untrack = extra.logSink ? this.track(name, extra.logSink) : () => undefined;
    // What goes to the backend link: everything but the hub-side log sink, retry and task facts.
    const { logSink: _sink, retry: _retry, modern: _modern, taskOwner: _owner, taskRequest: _task, ...callExtra } = extra;
    // A 2026-07-28 backend is not told the client takes tasks: the SDK's client in its worker
    // cannot read a `resultType: "task"` answer, so such a task could never be reached.
    if (callExtra.clientCapabilities && isModernBackend(target.backend)) callExtra.clientCapabilities = withoutTasksExtension(callExtra.clientCapabilities);
    let outcome: LinkOutcome;
    try {
      outcome = await this.dispatch(target, method, params, extra, callExtra);
    } finally {
      untrack();
    }
    if ('parked' in outcome) {
      // The backend's question goes to the client with this call's answer; the retry resumes it.
      const { parkId, method: asked, params: question } = outcome.parked;
      return { resultType: 'input_required', inputRequests: { [INPUT_KEY]: { method: asked, params: question } }, requestState: this.options.stateCodec.mint({ k: 'park', b: name, w: target.link.worker, p: parkId }) };
    }
    if (outcome.ok) {
      const result = withoutEnvelope(outcome.result);
      if (result.resultType !== 'input_required') return result;
      // A 2026-07-28 backend's own question: its state travels inside ours, so the retry comes back here.
      const inner = typeof result.requestState === 'string' ? { s: result.requestState } : {};
      return { ...result, requestState: this.options.stateCodec.mint({ k: 'pass', b: name, ...inner }) };
    }
    // What a backend or a worker says leaves over the network: sanitized in full (decisions §4).
    throw new ProtocolError(outcome.error.code, sanitize(outcome.error.message), outcome.error.data ?? { backend: name, reason: outcome.error.kind });
  }

  // A first call, or a retry carrying answers: to the backend's own state, or to a parked question.
  private dispatch(target: Target, method: BackendMethod, params: Record<string, unknown>, extra: RouteExtra, callExtra: CallExtra): Promise<LinkOutcome> {
    const retry = extra.retry;
    if (!retry) return target.link.request(method, params, callExtra);
    const name = target.backend.name;
    if (retry.state.b !== name) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `This requestState belongs to a call to backend '${retry.state.b}', not '${name}'`);
    if (retry.state.k === 'pass') {
      return target.link.request(method, { ...params, inputResponses: retry.inputResponses, ...(retry.state.s !== undefined ? { requestState: retry.state.s } : {}) }, callExtra);
    }
    if (retry.state.w !== target.link.worker) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Backend '${name}' restarted since it asked this question; call it again`);
    const answer = retry.inputResponses[INPUT_KEY];
    if (answer === undefined || answer === null || typeof answer !== 'object') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The retry carries no answer for input request '${INPUT_KEY}'`);
    return target.link.resume(retry.state.p, { ok: true, result: answer as Record<string, unknown> }, callExtra);
  }

  async callTool(qualified: string, args: Record<string, unknown> | undefined, filter: BackendFilter, extra: RouteExtra) {
    const target = await this.target('tool', qualified, filter);
    const params: Record<string, unknown> = { name: target.name, ...(args ? { arguments: args } : {}) };
    const task = this.taskAugmentation(target, qualified, extra);
    if (task) params.task = task;
    const result = await this.send(target, 'tools/call', params, extra);
    return this.adoptTask(target, result, extra) ?? qualifyToolResult(target.backend.name, result);
  }

  // Whether a call runs as a 2025-11-25 task: its 2025 client asked for one, or a 2026-07-28
  // client calls a tool its 2025 backend runs only as a task (the extension lets the server
  // decide, so a tool that may run either way runs as a plain call).
  private taskAugmentation(target: Target, qualified: string, extra: RouteExtra): Record<string, unknown> | undefined {
    if (isModernBackend(target.backend)) {
      if (extra.taskRequest) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${qualified} does not run as a 2025-11-25 task: backend '${target.backend.name}' speaks 2026-07-28`, { tool: qualified });
      return undefined;
    }
    if (extra.taskRequest) return extra.taskRequest;
    if (!extra.modern) return undefined;
    const tool = target.backend.inventory?.tools.find((t) => t.name === target.name) as { execution?: { taskSupport?: unknown } } | undefined;
    if (tool?.execution?.taskSupport !== 'required') return undefined;
    if (!takesTasks(extra.clientCapabilities)) {
      throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Tool ${qualified} runs only as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    return {};
  }

  // A 2025 backend's new task: its id becomes ours (signed, naming the backend and its
  // connection), a 2025 session owns it, and each client era gets its own shape.
  private adoptTask(target: Target, result: Record<string, unknown>, extra: RouteExtra): Record<string, unknown> | null {
    const task = createdTask2025(result);
    if (!task) return null;
    const name = target.backend.name;
    const backendId = task.taskId as string;
    const taskId = this.options.taskIds.mint({ b: name, w: target.link.worker, c: target.link.connection, t: backendId });
    if (extra.taskOwner) this.options.taskOwners.claim(extra.taskOwner, name, backendId);
    return extra.modern ? { resultType: 'task', ...modernTask(task, taskId) } : { ...result, task: { ...task, taskId } };
  }

  // The backend, worker and connection a client's task id names; refused when it is not this
  // service's, not this session's, or its backend restarted since.
  private taskTarget(taskId: unknown, filter: BackendFilter, extra: RouteExtra): Target & { ref: TaskRef } {
    let ref: TaskRef;
    try {
      ref = this.options.taskIds.open(taskId);
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${(error as Error).message}`, { taskId });
    }
    if (extra.taskOwner && this.options.taskOwners.ownerOf(ref.b, ref.t) !== extra.taskOwner) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task: this session did not create it', { taskId });
    }
    const backend = this.options.catalog.backend(ref.b, filter);
    if (!backend) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: backend '${ref.b}' is not configured`, { taskId });
    const link = this.options.links(ref.b);
    if (!link) throw this.unavailable(backend);
    if (link.worker !== ref.w || link.connection !== ref.c) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `Backend '${ref.b}' restarted since it created this task: the task and its result are lost; call the tool again`, { backend: ref.b, reason: 'restarted', taskId });
    }
    return { backend, name: ref.t, link, ref };
  }

  /** `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/update`: to the (2025) backend that created the task. */
  async taskRequest(method: TaskMethod, params: Record<string, unknown>, filter: BackendFilter, extra: RouteExtra): Promise<Record<string, unknown>> {
    const taskId = params.taskId as string;
    const target = this.taskTarget(taskId, filter, extra);
    const name = target.backend.name;
    const forward = { ...params, taskId: target.ref.t };
    if (extra.modern) return this.modernTaskOf2025(method, target, forward, taskId, extra);
    if (method === 'tasks/update') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    const result = await this.send(target, method, forward, extra);
    if (method === 'tasks/result') return withRelatedTask(qualifyToolResult(name, result), taskId);
    return { ...result, taskId };
  }

  // A 2026-07-28 client follows a 2025 backend's task: tasks/get carries the result once the
  // task is done (read with the backend's tasks/result); cancel is acknowledged empty.
  private async modernTaskOf2025(method: TaskMethod, target: Target, forward: Record<string, unknown>, taskId: string, extra: RouteExtra): Promise<Record<string, unknown>> {
    const name = target.backend.name;
    if (method === 'tasks/cancel') {
      await this.send(target, 'tasks/cancel', forward, extra);
      return {};
    }
    if (method !== 'tasks/get') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Backend '${name}' runs 2025-11-25 tasks, which take input only through tasks/result; ${method} cannot reach it`, { taskId });
    }
    const { _meta: _dropped, ...status } = await this.send(target, 'tasks/get', forward, extra);
    const task = modernTask(status, taskId);
    if (status.status === 'input_required') {
      // Its questions come with tasks/result, which this era does not have: say so, keep it working.
      return { ...task, status: 'working', statusMessage: `${typeof status.statusMessage === 'string' ? `${status.statusMessage} ` : ''}(backend '${name}' waits for input that a 2026-07-28 client cannot give to a 2025-11-25 task)` };
    }
    if (status.status !== 'completed' && status.status !== 'failed') return task;
    try {
      const { _meta: _related, ...result } = await this.send(target, 'tasks/result', forward, extra);
      if (status.status === 'completed') return { ...task, result: qualifyToolResult(name, result) };
      return { ...task, error: { code: ProtocolErrorCode.InternalError, message: typeof status.statusMessage === 'string' ? status.statusMessage : 'The task failed', data: result } };
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return { ...task, status: 'failed', error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
    }
  }

  /** `tasks/list` of a 2025 session: the tasks it created, on every backend it sees that lists tasks. */
  async listTasks(filter: BackendFilter, extra: RouteExtra): Promise<{ tasks: Record<string, unknown>[] }> {
    const owner = extra.taskOwner;
    const tasks: Record<string, unknown>[] = [];
    if (!owner) return { tasks };
    for (const backend of this.options.catalog.connected(filter)) {
      const offered = backend.capabilities?.tasks;
      const link = this.options.links(backend.name);
      if (!link || isModernBackend(backend) || !isPlainObject(offered) || !isPlainObject(offered.list)) continue;
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_TASK_LIST_PAGES; pages++) {
        let page: Record<string, unknown>;
        try {
          page = await this.send({ backend, name: '', link }, 'tasks/list', cursor ? { cursor } : {}, extra);
        } catch {
          break; // one backend failing to list hides its tasks only
        }
        for (const task of Array.isArray(page.tasks) ? page.tasks : []) {
          if (!isPlainObject(task) || typeof task.taskId !== 'string' || this.options.taskOwners.ownerOf(backend.name, task.taskId) !== owner) continue;
          tasks.push({ ...task, taskId: this.options.taskIds.mint({ b: backend.name, w: link.worker, c: link.connection, t: task.taskId }) });
        }
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
        if (!cursor) break;
      }
    }
    return { tasks };
  }

  /** A backend's task changed status (2025-11-25 `notifications/tasks/status`): its creator hears it. */
  taskStatus(backend: string, params: Record<string, unknown>): void {
    if (typeof params.taskId !== 'string') return;
    const owner = this.options.taskOwners.ownerOf(backend, params.taskId);
    const link = this.options.links(backend);
    if (!owner || !link) return;
    owner.taskStatus({ ...params, taskId: this.options.taskIds.mint({ b: backend, w: link.worker, c: link.connection, t: params.taskId }) });
  }

  /** A session ended: its tasks are nobody's. */
  dropTaskOwner(owner: TaskOwner): void {
    this.options.taskOwners.drop(owner);
  }

  async getPrompt(qualified: string, args: Record<string, string> | undefined, filter: BackendFilter, extra: RouteExtra) {
    const target = await this.target('prompt', qualified, filter);
    return qualifyPromptResult(target.backend.name, await this.send(target, 'prompts/get', { name: target.name, ...(args ? { arguments: args } : {}) }, extra));
  }

  /** `resources/subscribe`: the subscriber hears `uri` (client-facing) changed until it unsubscribes or ends. */
  async subscribe(subscriber: Subscriber, qualifiedUri: string, filter: BackendFilter): Promise<void> {
    const target = await this.target('resource', qualifiedUri, filter);
    await this.options.subscriptions.add(subscriber, target.backend.name, target.name, target.link);
  }

  /** `resources/unsubscribe`: also while the backend is down (its worker forgets it then). */
  unsubscribe(subscriber: Subscriber, qualifiedUri: string): void {
    const parts = splitQualified(qualifiedUri);
    if (!parts) throw this.unknown('resource', qualifiedUri);
    this.options.subscriptions.remove(subscriber, parts.server, parts.name, this.options.links(parts.server));
  }

  /** A client ended: its subscriptions go. */
  dropSubscriber(subscriber: Subscriber): void {
    this.options.subscriptions.drop(subscriber, (backend) => this.options.links(backend));
  }

  /** A backend resource changed: its subscribers hear it. */
  resourceUpdated(backend: string, uri: string): void {
    this.options.subscriptions.updated(backend, uri);
  }

  async readResource(qualifiedUri: string, filter: BackendFilter, extra: RouteExtra) {
    const target = await this.target('resource', qualifiedUri, filter);
    return qualifyReadResult(target.backend.name, await this.send(target, 'resources/read', { uri: target.name }, extra));
  }

  async complete(ref: { type: string; name?: string; uri?: string }, params: Record<string, unknown>, filter: BackendFilter, extra: RouteExtra) {
    const isPrompt = ref.type === 'ref/prompt';
    const qualified = (isPrompt ? ref.name : ref.uri) ?? '';
    const target = await this.target(isPrompt ? 'prompt' : 'resource', qualified, filter);
    const backendRef = isPrompt ? { ...ref, name: target.name } : { ...ref, uri: target.name };
    return this.send(target, 'completion/complete', { ...params, ref: backendRef }, extra);
  }
}
