// The client-facing MCP endpoints on the main thread's HTTP server:
//   /mcp              streamable HTTP; 2026-07-28 requests per request, 2025 clients in sessions
//   GET /sse + POST /messages   the legacy SSE transport
// `?tags=` / `?tag-filter=` choose which backends a session sees (decisions §9).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Catalog } from './catalog.ts';
import { type BackendFilter, filterFromQuery, TagFilterError } from '../shared/tag-filter.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChangeNotifier } from './notifier.ts';
import type { InitialLoadGate, Router } from './router.ts';
import { createGatewayServer, sendListChanged } from './server-factory.ts';
import { LegacySseServerTransport } from './sse-transport.ts';

/** A legacy session nobody has used for this long is closed (clients rarely send DELETE). */
export const SESSION_IDLE_MS = 30 * 60_000;
const REAP_INTERVAL_MS = 60_000;

type Session = { server: Server; transport: { close(): Promise<void> }; lastActivity: number };

export type McpEndpointsOptions = { catalog: Catalog; router: Router; notifier: ChangeNotifier; log: Logger; lazyTools?: boolean; now?: () => number; initialLoad?: InitialLoadGate };

// 2026-07-28 requests name their method in a header: discovery and lists wait for the initial load.
const waitsForInitialLoad = (method: string | null) => method !== null && (method === 'server/discover' || method.endsWith('/list'));

function jsonRpcError(status: number, message: string, code = -32000): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

export function createMcpEndpoints({ catalog, router, notifier, log, lazyTools = false, now = Date.now, initialLoad }: McpEndpointsOptions) {
  const streamable = new Map<string, Session>();
  const sse = new Map<string, Session & { transport: LegacySseServerTransport }>();
  const serverFor = (filter: BackendFilter) => createGatewayServer({ catalog, router, filter, lazyTools });

  const modern = createMcpHandler((ctx) => serverFor(ctx.requestInfo ? filterFromQuery(new URL(ctx.requestInfo.url).searchParams) : null), {
    legacy: 'reject',
    onerror: (error) => log.debug({ err: error.message }, 'MCP (2026-07-28) request error'),
  });

  // 2025 clients on /mcp: a session per initialize, with its own Server and its tag filter fixed.
  async function legacy(request: Request, filter: BackendFilter): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const session = streamable.get(id);
      if (!session) return jsonRpcError(404, `Session not found: ${id}`);
      session.lastActivity = now();
      return (session.transport as WebStandardStreamableHTTPServerTransport).handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, 'Bad Request: an Mcp-Session-Id header is required');
    // A new session's initialize answers with the backends' capabilities and instructions.
    await initialLoad?.settled();
    const server = serverFor(filter);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void streamable.set(sessionId, { server, transport, lastActivity: now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  const fetchMcp = async (request: Request): Promise<Response> => {
    let filter: BackendFilter;
    try {
      filter = filterFromQuery(new URL(request.url).searchParams);
    } catch (error) {
      if (error instanceof TagFilterError) return Response.json({ error: 'invalid_tag_filter', message: error.message }, { status: 400 });
      throw error;
    }
    // Only 2025 sessions carry a session id: skip the body sniffing for them.
    const isLegacy = request.headers.has('mcp-session-id') || (await isLegacyRequest(request));
    if (isLegacy) return legacy(request, filter);
    if (initialLoad && !initialLoad.isSettled() && waitsForInitialLoad(request.headers.get('mcp-method'))) await initialLoad.settled();
    return modern.fetch(request);
  };
  const mcp = toNodeHandler({ fetch: fetchMcp }, { onerror: (error) => log.warn({ err: error.message }, 'MCP HTTP request failed') });

  async function openSse(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const initial = await toWebRequest(req);
    let filter: BackendFilter;
    try {
      filter = filterFromQuery(new URL(initial.url).searchParams);
    } catch (error) {
      if (!(error instanceof TagFilterError)) throw error;
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'invalid_tag_filter', message: error.message }));
      return;
    }
    await initialLoad?.settled();
    const transport = new LegacySseServerTransport('/messages', res, initial);
    const server = serverFor(filter);
    sse.set(transport.sessionId, { server, transport, lastActivity: now() });
    transport.onclose = () => void sse.delete(transport.sessionId);
    await server.connect(transport);
  }

  async function postMessage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = new URL(req.url ?? '', 'http://localhost').searchParams.get('sessionId') ?? '';
    const session = sse.get(sessionId);
    if (!session) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`Session not found: ${sessionId}`);
    session.lastActivity = now();
    await session.transport.handlePost(req, res);
  }

  const unsubscribe = notifier.subscribe((kind) => {
    for (const session of [...streamable.values(), ...sse.values()]) {
      sendListChanged(session.server, kind).catch((error: Error) => log.debug({ err: error.message }, 'could not notify a session'));
    }
    if (kind === 'tools') modern.notify.toolsChanged();
    else if (kind === 'prompts') modern.notify.promptsChanged();
    else modern.notify.resourcesChanged();
  });

  const reaper = setInterval(() => {
    const cutoff = now() - SESSION_IDLE_MS;
    for (const [id, session] of [...streamable, ...sse]) {
      if (session.lastActivity >= cutoff) continue;
      log.info({ session: id }, 'closing an idle MCP session');
      void session.server.close().catch(() => undefined);
    }
  }, REAP_INTERVAL_MS);
  reaper.unref();

  return {
    mcp: (req: IncomingMessage, res: ServerResponse) => void mcp(req, res),
    openSse: (req: IncomingMessage, res: ServerResponse) => void openSse(req, res).catch((error: Error) => log.warn({ err: error.message }, 'SSE session failed')),
    postMessage: (req: IncomingMessage, res: ServerResponse) => void postMessage(req, res).catch((error: Error) => log.warn({ err: error.message }, 'SSE message failed')),
    sessionCount: () => streamable.size + sse.size,
    /** Ends every session (shutdown): clients see their streams close. */
    async close(): Promise<void> {
      clearInterval(reaper);
      unsubscribe();
      await Promise.all([...streamable.values(), ...sse.values()].map((s) => s.server.close().catch(() => undefined)));
      await modern.close();
    },
  };
}
export type McpEndpoints = ReturnType<typeof createMcpEndpoints>;
