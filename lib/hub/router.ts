// Routes client requests to the owning backend's worker, turning every failure into an MCP
// error that names what went wrong, and client-facing names into the backend's and back.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Catalog } from './catalog.ts';
import { isToolDisabled } from '../shared/tool-policy.ts';
import { toolDisabledError } from './tool-errors.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { BackendMethod } from '../shared/messages/calls.ts';
import { Code, rpcCode } from '../shared/errors.ts';
import type { BackendLink, CallExtra, InitialLoadGate, LinkOutcome } from './link-types.ts';
import type { RequestStatePayload, StateCodec } from './request-state.ts';
import type { ResourceSubscriptions, Subscriber } from './subscriptions.ts';
import type { BackendState } from '../shared/backend-state.ts';
import { firstConnectInProgress, serverStatus } from '../shared/status.ts';
import { sanitize } from '../shared/sanitize.ts';
import { splitQualified } from '../shared/names.ts';
import { failureData } from './failure-data.ts';
import { qualifyPromptResult, qualifyReadResult, qualifyResourceError, qualifyToolResult } from './uri-rewrite.ts';
import type { TaskIdCodec } from './task-ids.ts';
import { type TaskExtra, TaskRouter } from './task-router.ts';
import type { TaskOwners } from './tasks.ts';

/** A routed request: the call, what the hub keeps of it, and its task facts (TaskExtra). */
export type RouteExtra = CallExtra & TaskExtra & {
  /**
   * Where the backend's logging messages may go while the request runs: the client session
   * that made it (2025 clients). Omitted for clients that take no log messages.
   */
  logSink?: { session: object; deliver: (params: Record<string, unknown>) => void };
  /** A retry after input_required: the verified state and the client's answers. */
  retry?: { state: RequestStatePayload; inputResponses: Record<string, unknown> };
};

/** The key of the one question a parked call asks its client. */
export const INPUT_KEY = 'input';

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

// The catalogue's codes (lib/shared/errors.ts) of what the router answers; MCP error data carries them as `code`.
const UNKNOWN = { tool: Code.unknown_tool, prompt: Code.unknown_prompt, resource: Code.unknown_resource } as const;
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
  // Per backend, the clients with calls in flight there (and how many), those that take no log
  // messages too: a backend's log message goes to a session only when it is the only client
  // calling that backend (one user's activity must not reach another).
  private readonly inflight = new Map<string, Map<object, { calls: number; deliver: ((params: Record<string, unknown>) => void) | null }>>();

  /** tasks/* and task handles (task-router.ts). */
  readonly tasks: TaskRouter<BackendLink, RouteExtra>;

  constructor(private readonly options: RouterOptions) {
    this.tasks = new TaskRouter({
      catalog: options.catalog,
      links: options.links,
      taskIds: options.taskIds,
      taskOwners: options.taskOwners,
      send: (target, method, params, extra) => this.send(target, method, params, extra),
      unavailable: (backend) => this.unavailable(backend),
    });
  }

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
      const deliver = sessions.values().next().value?.deliver;
      if (deliver) return deliver(params);
    }
    this.options.logUnrouted(backend, params);
  }

  private unknown(kind: Kind, name: string): ProtocolError {
    const code = UNKNOWN[kind];
    return new ProtocolError(rpcCode(code), `Unknown ${kind}: ${name}`, { code, [kind === 'resource' ? 'uri' : kind]: name });
  }

  private unavailable(backend: BackendState): ProtocolError {
    return new ProtocolError(rpcCode(Code.backend_unavailable), `Backend '${backend.name}' is not connected (status: ${serverStatus(backend)})`, {
      code: Code.backend_unavailable,
      backend: backend.name,
      status: serverStatus(backend),
    });
  }

  // Connected, as the main thread reports, but this hub has no channel to its worker yet (a hub
  // or a worker that has just started): its status would say "connected", which is no reason.
  private unwired(backend: BackendState): ProtocolError {
    const status = serverStatus(backend);
    if (status !== 'connected') return this.unavailable(backend);
    return new ProtocolError(rpcCode(Code.backend_unavailable), `Backend '${backend.name}' is not connected to this MCP worker yet (its channel is being set up); retry in a moment`, {
      code: Code.backend_unavailable,
      backend: backend.name,
      status,
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
      throw toolDisabledError(found.backend.name, found.name, qualified);
    }
    const link = this.options.links(found.backend.name);
    if (!link) throw this.unwired(found.backend);
    return { ...found, link };
  }

  // A call without a log sink counts under its session, or as a client of its own.
  private track(backend: string, extra: RouteExtra): () => void {
    const key = extra.logSink?.session ?? extra.session ?? {};
    let sessions = this.inflight.get(backend);
    if (!sessions) this.inflight.set(backend, (sessions = new Map()));
    const entry = sessions.get(key) ?? { calls: 0, deliver: null };
    entry.deliver ??= extra.logSink?.deliver ?? null;
    entry.calls++;
    sessions.set(key, entry);
    return () => {
      if (--entry.calls > 0) return;
      sessions.delete(key);
      if (sessions.size === 0) this.inflight.delete(backend);
    };
  }

  private async send(target: Target, method: BackendMethod, params: Record<string, unknown>, extra: RouteExtra): Promise<Record<string, unknown>> {
    const name = target.backend.name;
    const untrack = this.track(name, extra);
    // What goes to the backend link: everything but the hub-side log sink, retry and task facts.
    const { logSink: _sink, retry: _retry, modern: _modern, taskOwner: _owner, taskRequest: _task, ...callExtra } = extra;
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
    // The backend's own data (an MCP error's) goes as it came; ours names the catalogue code.
    throw new ProtocolError(outcome.error.code, sanitize(outcome.error.message), failureData(outcome.error, name));
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
    const task = this.tasks.augmentation(target, qualified, extra);
    if (task) params.task = task;
    const result = await this.send(target, 'tools/call', params, extra);
    return this.tasks.adopt(target, result, extra) ?? qualifyToolResult(target.backend.name, result);
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
    try {
      return qualifyReadResult(target.backend.name, await this.send(target, 'resources/read', { uri: target.name }, extra));
    } catch (error) {
      throw qualifyResourceError(target.backend.name, target.name, error);
    }
  }

  async complete(ref: { type: string; name?: string; uri?: string }, params: Record<string, unknown>, filter: BackendFilter, extra: RouteExtra) {
    const isPrompt = ref.type === 'ref/prompt';
    const qualified = (isPrompt ? ref.name : ref.uri) ?? '';
    const target = await this.target(isPrompt ? 'prompt' : 'resource', qualified, filter);
    const backendRef = isPrompt ? { ...ref, name: target.name } : { ...ref, uri: target.name };
    return this.send(target, 'completion/complete', { ...params, ref: backendRef }, extra);
  }
}
