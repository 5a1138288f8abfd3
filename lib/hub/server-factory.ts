// One low-level MCP Server per client session (legacy), per request (modern HTTP) or per stdio
// connection. Handlers read the shared catalog and route through the Router; they hold no state.
import { type CallToolResult, type JSONRPCRequest, LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode, type Result, Server, type ServerContext, type Transport } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Catalog, HintedList } from './catalog.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { ProgressParams } from '../shared/messages/calls.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../shared/version.ts';
import { findTool, isMetaTool, META_TOOLS, toolList, toolSchema } from './lazy-tools.ts';
import { badArgument } from './tool-errors.ts';
import { isToolDisabled } from '../shared/tool-policy.ts';
import { paginate } from './pagination.ts';
import { withErrorCode } from './catalogue-code.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import type { RequestStatePayload } from './request-state.ts';
import type { RouteExtra, Router } from './router.ts';
import { askClient, clientCapabilities } from './client-input.ts';
import { createdTask2025, isCreatedTask2026, type TaskOwner, TASKS_EXTENSION } from './tasks.ts';

type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
const LOG_LEVELS = new Set<string>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

const CHANGE_NOTIFICATIONS = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'];

// What a 2025 session that never set a level is sent from a 2026-07-28 backend (MCP leaves it to
// the server): info and above, not a backend's debug chatter.
const DEFAULT_SESSION_LOG_LEVEL = 'info';

// The least severe level the caller wants logged: a 2026-07-28 request's envelope (none: it wants
// none); a 2025 session's logging/setLevel, as the GatewayServer recorded it.
function logLevelOf(ctx: ServerContext, server: GatewayServer, modern: boolean): string | undefined {
  if (modern) {
    const level = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
    return typeof level === 'string' ? level : undefined;
  }
  return server.logLevels.get(ctx.sessionId) ?? server.logLevels.get(undefined) ?? DEFAULT_SESSION_LOG_LEVEL;
}

// Progress, cancellation, backend logs and backend questions of one client request, wired to
// the backend call. `settled` waits for the notifications already handed to the SDK: a client
// drops progress that arrives after the response, so the response must not overtake them.
// `server` is the client's Server (one per 2025 session or stdio connection, one per request for
// 2026-07-28 HTTP). Backend log messages reach the caller at the level it chose (a 2025 session's
// logging/setLevel, a 2026-07-28 request's envelope), which 2026-07-28 backends are told with the
// call. `logs` is false where a request cannot carry log messages (completion).
function routeExtra(ctx: ServerContext, server: GatewayServer, owner: TaskOwner, inputTimeoutMs: number, logs: boolean): { extra: RouteExtra; settled: () => Promise<unknown> } {
  const token = ctx.mcpReq._meta?.progressToken;
  const capabilities = clientCapabilities(ctx, () => server.getClientCapabilities() as Record<string, unknown> | undefined);
  const modern = ctx.mcpReq.envelope !== undefined;
  const extra: RouteExtra = { signal: ctx.mcpReq.signal, session: server, onInputRequest: askClient(ctx, capabilities, inputTimeoutMs), modern };
  if (capabilities) extra.clientCapabilities = capabilities;
  // A 2025 session (or stdio connection) owns the tasks it creates; a 2026-07-28 request stands alone.
  if (!modern) extra.taskOwner = owner;
  const pending: Promise<unknown>[] = [];
  if (token !== undefined) {
    extra.onProgress = (progress: ProgressParams) =>
      void pending.push(ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined));
  }
  const level = logs ? logLevelOf(ctx, server, modern) : undefined;
  // A 2026-07-28 request that asked for no log level has no sink: a message then goes to the service log.
  if (level !== undefined) {
    extra.logLevel = level;
    const deliver = (params: Record<string, unknown>) => {
      const level = typeof params.level === 'string' && LOG_LEVELS.has(params.level) ? (params.level as LogLevel) : 'info';
      // mcpReq.log applies the level the session chose with logging/setLevel.
      pending.push(ctx.mcpReq.log(level, params.data, typeof params.logger === 'string' ? params.logger : undefined).catch(() => undefined));
    };
    // A 2026-07-28 request's messages are its own, also where one Server serves many (stdio).
    extra.logSink = { session: modern ? {} : server, deliver };
  }
  // A retry after input_required: the state was verified (the Server's requestState hook) before the handler ran.
  const state = ctx.mcpReq.requestState<RequestStatePayload>();
  if (state !== undefined) extra.retry = { state, inputResponses: ctx.mcpReq.inputResponses ?? {} };
  return { extra, settled: () => Promise.all(pending) };
}

// Runs a routed call and answers only after its notifications went out.
async function routed<T>(ctx: ServerContext, server: GatewayServer, owner: TaskOwner, inputTimeoutMs: number, call: (extra: RouteExtra) => Promise<T>, logs = true): Promise<T> {
  const { extra, settled } = routeExtra(ctx, server, owner, inputTimeoutMs, logs);
  try {
    return await call(extra);
  } finally {
    await settled();
  }
}

/** Sends one list's `list_changed` through a server (legacy session, or stdio either era). */
export function sendListChanged(server: Server, kind: 'tools' | 'prompts' | 'resources'): Promise<void> {
  // A 2025 session told at initialize that there were no such lists is not told they changed.
  if (!server.getCapabilities()[kind]) return Promise.resolve();
  return kind === 'tools' ? server.sendToolListChanged() : kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
}

// A task handle answers tools/call in place of its result (2025-11-25 `{task}`, 2026-07-28
// `resultType: "task"`): it passes the Server's tools/call result check untouched.
const isTaskAnswer = (result: Record<string, unknown>) => createdTask2025(result) !== null || isCreatedTask2026(result);
class TaskAnswer {
  constructor(readonly result: Result) {}
}

// The SDK rejects params that fail its schema with a plain Error carrying zod's issues as JSON
// (a client would get -32603 and a dump), or for tools/call with -32602 and the dump after
// "Invalid tools/call request: ": it is the client's error, -32602, said plainly.
function invalidParams(method: string, error: unknown): ProtocolError | null {
  let json: string;
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
    const dump = /^Invalid [\w/]+ request: (\[[\s\S]*\])$/.exec(error.message);
    if (!dump) return null;
    json = dump[1]!;
  } else if (error instanceof Error && error.constructor === Error) json = error.message;
  else return null;
  let issues: unknown;
  try {
    issues = JSON.parse(json);
  } catch {
    return null;
  }
  const isIssue = (i: unknown): i is { path: unknown[]; message: string } => typeof i === 'object' && i !== null && Array.isArray((i as { path?: unknown }).path) && typeof (i as { message?: unknown }).message === 'string';
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return null;
  const said = issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : 'the request'}: ${i.message}`).join('; ');
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${said}`);
}

export class GatewayServer extends Server {
  /** A 2025 session's logging/setLevel, by transport session id (the SDK keeps its own privately). */
  readonly logLevels = new Map<string | undefined, string>();

  /** Ids of the requests whose handlers run: what a DELETE of the session answers (answerInFlight). */
  private readonly running = new Set<string | number>();

  /**
   * Answers every request still running with `error` (a 2025 session ended by DELETE): the SDK
   * does not answer a request it aborts, so a client's pending call would never settle.
   */
  async answerInFlight(error: { code: number; message: string; data: Record<string, unknown> }): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    for (const id of [...this.running]) await transport.send({ jsonrpc: '2.0', id, error }, { relatedRequestId: id }).catch(() => undefined);
  }

  /** Every error this server sends names its catalogue code, also those the SDK writes itself (catalogue-code.ts). */
  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(withErrorCode(message), options);
    return super.connect(transport);
  }

  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(
      method,
      method === 'tools/call'
        ? async (request, ctx) => {
            const result = await handler(request, ctx);
            if (isTaskAnswer(result as Record<string, unknown>)) throw new TaskAnswer(result);
            return result;
          }
        : handler,
    );
    // The level a 2025 session chose, once the SDK took it.
    const checked =
      method === 'logging/setLevel'
        ? async (request: JSONRPCRequest, ctx: ServerContext) => {
            const result = await wrapped(request, ctx);
            const level = (request.params as { level?: unknown } | undefined)?.level;
            if (typeof level === 'string') this.logLevels.set(ctx.sessionId, level);
            return result;
          }
        : wrapped;
    return async (request, ctx) => {
      this.running.add(request.id);
      try {
        return await checked(request, ctx);
      } catch (error) {
        if (error instanceof TaskAnswer) return error.result;
        throw invalidParams(method, error) ?? error;
      } finally {
        this.running.delete(request.id);
      }
    };
  }
}

// A 2025 client's `params.task` (the call is to run as a task).
const taskOf = (params: object): Record<string, unknown> | undefined => {
  const task = (params as { task?: unknown }).task;
  return task !== null && typeof task === 'object' && !Array.isArray(task) ? (task as Record<string, unknown>) : undefined;
};

const TaskIdParams = z.looseObject({ taskId: z.string() });
const TaskListParams = z.looseObject({ cursor: z.string().optional() });

export type GatewayServerOptions = {
  catalog: Catalog;
  router: Router;
  filter: BackendFilter;
  lazyTools?: boolean;
  /** The client's only session (stdio mode): tools, prompts and resources are offered even while no backend has them, so the lists of backends that connect later reach it. */
  everyList?: boolean;
};

export function createGatewayServer({ catalog, router, filter, lazyTools = false, everyList = false }: GatewayServerOptions): GatewayServer {
  const view = () => catalog.view(filter);
  const { instructions, capabilities: offered } = view();
  // The backends' union, fixed for a 2025 session at its initialize (a 2026-07-28 request gets a
  // fresh Server, so discover follows changes). The meta-tools of --lazy-tools are always there.
  const shown = lazyTools ? { ...offered, tools: { listChanged: true } } : offered;
  const capabilities = everyList ? { ...shown, tools: { listChanged: true }, prompts: { listChanged: true }, resources: { ...shown.resources, listChanged: true } } : shown;
  const server = new GatewayServer(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    {
      capabilities,
      ...(instructions ? { instructions } : {}),
      debouncedNotificationMethods: CHANGE_NOTIFICATIONS,
      // A client cannot forge or alter the state of an input_required answer; a refused one is
      // answered -32602 "Invalid or expired requestState" by the SDK.
      requestState: { verify: (state: string) => router.stateCodec.verify(state) },
      // A 2025 client asked through the SDK's shim (a 2026-07-28 backend's input_required) has as long as ours.
      inputRequired: { roundTimeoutMs: router.inputTimeoutMs },
    },
  );
  // The tasks this server's 2025 session creates are its own; their status notifications come here.
  const owner: TaskOwner = { taskStatus: (params) => void server.notification({ method: 'notifications/tasks/status', params }).catch(() => undefined) };
  const closeHooks: (() => void)[] = [() => router.tasks.dropOwner(owner)];
  server.onclose = () => {
    for (const hook of closeHooks) hook();
  };
  const run = <T>(ctx: ServerContext, call: (extra: RouteExtra) => Promise<T>, logs = true) => routed(ctx, server, owner, router.inputTimeoutMs, call, logs);
  // A 2026-07-28 list answer says how long it may be reused (its backends' hints); 2025 has no such fields.
  const listPage = <K extends HintedList>(ctx: ServerContext, kind: K, items: unknown[], cursor: string | undefined) => {
    const { page, nextCursor } = paginate(items, cursor);
    const hint = ctx.mcpReq.envelope !== undefined ? view().cacheHints[kind] : {};
    return { [kind]: page, ...(nextCursor ? { nextCursor } : {}), ...hint } as never;
  };

  if (capabilities.tools) {
    server.setRequestHandler('tools/list', (req, ctx) => listPage(ctx, 'tools', lazyTools ? META_TOOLS : view().tools, req.params?.cursor));
    const call = async (ctx: ServerContext, name: string, args: Record<string, unknown> | undefined, task?: Record<string, unknown>): Promise<CallToolResult> => {
      const result = await run(ctx, (extra) => router.callTool(name, args, filter, task ? { ...extra, taskRequest: task } : extra));
      // A question for the client (input_required) or a task handle is not the tool's result: nothing to project.
      if (result.resultType === 'input_required' || isTaskAnswer(result)) return result as never;
      const tool = view().tools.find((t) => t.name === name);
      return server.projectCallToolResult(result as CallToolResult, tool?.outputSchema);
    };
    server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult> => {
      const { name, arguments: args = {} } = req.params;
      if (lazyTools && isMetaTool(name)) {
        if (name === 'tool_list') return toolList(args, { view: view(), tagsOf: (s) => catalog.tagsOf(s) });
        // A tool the view hides because it is disabled gets tool_disabled, as a direct call does.
        const disabled = (server: string, tool: string) => {
          const backend = catalog.backend(server, filter);
          return backend !== undefined && isToolDisabled(server, tool, backend.toolPolicy);
        };
        if (name === 'tool_schema') return toolSchema(args, view(), disabled);
        const tool = findTool(args, view(), disabled);
        const inner = args.arguments;
        if (inner !== undefined && !isPlainObject(inner)) throw badArgument('Expected "arguments" to be an object');
        return call(ctx, tool.name, inner as Record<string, unknown> | undefined, taskOf(req.params));
      }
      return call(ctx, name, req.params.arguments, taskOf(req.params));
    });
  }
  // Tasks: 2025-11-25 in core (get, result, list, cancel), the 2026-07-28 extension (get, update, cancel).
  if (capabilities.tasks || (capabilities.extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION]) {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update'] as const) {
      server.setRequestHandler(method, { params: TaskIdParams }, (params, ctx) => {
        // tasks/update's inputResponses are lifted out of params by the SDK.
        const withAnswers = method === 'tasks/update' ? { ...params, inputResponses: ctx.mcpReq.inputResponses ?? {} } : params;
        return run(ctx, (extra) => router.tasks.request(method, withAnswers, filter, extra)) as never;
      });
    }
    server.setRequestHandler('tasks/list', { params: TaskListParams }, (_params, ctx) => run(ctx, (extra) => router.tasks.list(filter, extra)) as never);
  }
  if (capabilities.prompts) {
    server.setRequestHandler('prompts/list', (req, ctx) => listPage(ctx, 'prompts', view().prompts, req.params?.cursor));
    server.setRequestHandler('prompts/get', async (req, ctx) => {
      return (await run(ctx, (extra) => router.getPrompt(req.params.name, req.params.arguments, filter, extra))) as never;
    });
  }
  if (capabilities.resources) {
    server.setRequestHandler('resources/list', (req, ctx) => listPage(ctx, 'resources', view().resources, req.params?.cursor));
    server.setRequestHandler('resources/templates/list', (req, ctx) => listPage(ctx, 'resourceTemplates', view().resourceTemplates, req.params?.cursor));
    if (capabilities.resources.subscribe === true) {
      // One subscriber per Server: a 2025 session or stdio connection (2026-07-28 has no resources/subscribe).
      const subscriber = { resourceUpdated: (uri: string) => void server.sendResourceUpdated({ uri }).catch(() => undefined) };
      closeHooks.push(() => router.dropSubscriber(subscriber));
      server.setRequestHandler('resources/subscribe', async (req) => {
        await router.subscribe(subscriber, req.params.uri, filter);
        return {};
      });
      server.setRequestHandler('resources/unsubscribe', async (req) => {
        router.unsubscribe(subscriber, req.params.uri);
        return {};
      });
    }
    server.setRequestHandler('resources/read', async (req, ctx) => {
      const result = await run(ctx, (extra) => router.readResource(req.params.uri, filter, extra));
      // The owning backend's own hint goes to a 2026-07-28 client; a 2025 client has no such fields.
      if (ctx.mcpReq.envelope !== undefined) return result as never;
      const { ttlMs: _ttl, cacheScope: _scope, ...plain } = result as Record<string, unknown>;
      return plain as never;
    });
  }
  if (capabilities.completions) {
    server.setRequestHandler('completion/complete', async (req, ctx) => {
      const { ref, ...rest } = req.params;
      const plain = ref as { type: string; name?: string; uri?: string };
      if (plain.type !== 'ref/prompt' && plain.type !== 'ref/resource') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown completion reference type: ${String(plain.type)}`);
      return (await run(ctx, (extra) => router.complete(plain, rest, filter, extra), false)) as never;
    });
  }
  return server;
}
