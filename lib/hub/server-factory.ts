// One low-level MCP Server per client session (legacy), per request (modern HTTP) or per stdio
// connection. Handlers read the shared catalog and route through the Router; they hold no state.
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Catalog } from './catalog.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { ProgressParams } from '../shared/messages/calls.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../shared/version.ts';
import { findTool, isMetaTool, META_TOOLS, toolList, toolSchema } from './lazy-tools.ts';
import { paginate } from './pagination.ts';
import type { RouteExtra, Router } from './router.ts';

type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
const LOG_LEVELS = new Set<string>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

const CHANGE_NOTIFICATIONS = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'];

// Progress, cancellation and backend logs of one client request, wired to the backend call.
// `settled` waits for the notifications already handed to the SDK: a client drops progress
// that arrives after the response, so the response must not overtake them.
// `session` is the client's Server (one per 2025 session or stdio connection): backend log
// messages can reach it. 2026-07-28 requests have no logging.
function routeExtra(ctx: ServerContext, session: Server | null): { extra: RouteExtra; settled: () => Promise<unknown> } {
  const token = ctx.mcpReq._meta?.progressToken;
  const extra: RouteExtra = { signal: ctx.mcpReq.signal };
  const pending: Promise<unknown>[] = [];
  if (token !== undefined) {
    extra.onProgress = (progress: ProgressParams) =>
      void pending.push(ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined));
  }
  if (session && ctx.mcpReq.envelope === undefined) {
    const deliver = (params: Record<string, unknown>) => {
      const level = typeof params.level === 'string' && LOG_LEVELS.has(params.level) ? (params.level as LogLevel) : 'info';
      // mcpReq.log applies the level the session chose with logging/setLevel.
      pending.push(ctx.mcpReq.log(level, params.data, typeof params.logger === 'string' ? params.logger : undefined).catch(() => undefined));
    };
    extra.logSink = { session, deliver };
  }
  return { extra, settled: () => Promise.all(pending) };
}

// Runs a routed call and answers only after its notifications went out.
async function routed<T>(ctx: ServerContext, session: Server | null, call: (extra: RouteExtra) => Promise<T>): Promise<T> {
  const { extra, settled } = routeExtra(ctx, session);
  try {
    return await call(extra);
  } finally {
    await settled();
  }
}

/** Sends one list's `list_changed` through a server (legacy session, or stdio either era). */
export function sendListChanged(server: Server, kind: 'tools' | 'prompts' | 'resources'): Promise<void> {
  return kind === 'tools' ? server.sendToolListChanged() : kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
}

export type GatewayServerOptions = { catalog: Catalog; router: Router; filter: BackendFilter; lazyTools?: boolean };

export function createGatewayServer({ catalog, router, filter, lazyTools = false }: GatewayServerOptions): Server {
  const view = () => catalog.view(filter);
  const instructions = view().instructions;
  const server = new Server(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true },
        completions: {},
        logging: {},
      },
      ...(instructions ? { instructions } : {}),
      debouncedNotificationMethods: CHANGE_NOTIFICATIONS,
    },
  );

  server.setRequestHandler('tools/list', (req) => {
    const { page, nextCursor } = paginate(lazyTools ? META_TOOLS : view().tools, req.params?.cursor);
    return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
  });
  const call = async (ctx: ServerContext, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> => {
    const result = await routed(ctx, server, (extra) => router.callTool(name, args, filter, extra));
    const tool = view().tools.find((t) => t.name === name);
    return server.projectCallToolResult(result as CallToolResult, tool?.outputSchema);
  };
  server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = req.params;
    if (lazyTools && isMetaTool(name)) {
      if (name === 'tool_list') return toolList(args, { view: view(), tagsOf: (s) => catalog.tagsOf(s) });
      if (name === 'tool_schema') return toolSchema(args, view());
      const tool = findTool(args, view());
      const inner = args.arguments;
      if (inner !== undefined && (typeof inner !== 'object' || inner === null || Array.isArray(inner))) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Expected "arguments" to be an object');
      return call(ctx, tool.name, inner as Record<string, unknown> | undefined);
    }
    return call(ctx, name, req.params.arguments);
  });
  server.setRequestHandler('prompts/list', (req) => {
    const { page, nextCursor } = paginate(view().prompts, req.params?.cursor);
    return { prompts: page, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('prompts/get', async (req, ctx) => {
    return (await routed(ctx, server, (extra) => router.getPrompt(req.params.name, req.params.arguments, filter, extra))) as never;
  });
  server.setRequestHandler('resources/list', (req) => {
    const { page, nextCursor } = paginate(view().resources, req.params?.cursor);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/templates/list', (req) => {
    const { page, nextCursor } = paginate(view().resourceTemplates, req.params?.cursor);
    return { resourceTemplates: page, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/read', async (req, ctx) => {
    return (await routed(ctx, server, (extra) => router.readResource(req.params.uri, filter, extra))) as never;
  });
  server.setRequestHandler('completion/complete', async (req, ctx) => {
    const { ref, ...rest } = req.params;
    const plain = ref as { type: string; name?: string; uri?: string };
    if (plain.type !== 'ref/prompt' && plain.type !== 'ref/resource') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown completion reference type: ${String(plain.type)}`);
    return (await routed(ctx, null, (extra) => router.complete(plain, rest, filter, extra))) as never;
  });
  return server;
}
