// The client-facing MCP endpoints, as fetch handlers (Request → Response) fed by the byte pump:
//   /mcp              streamable HTTP; 2026-07-28 requests per request, 2025 clients in sessions
//   GET /sse + POST /messages   the legacy SSE transport
// `?tags=` / `?tag-filter=` choose which backends a session sees (decisions §9). Session ids start
// with this hub's prefix (`h<index>-`) so the main thread routes a session's requests here.
import { randomUUID } from 'node:crypto';
import { createMcpHandler, isLegacyRequest, type Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Catalog, ListDigests } from './catalog.ts';
import { Code, type ErrorCode, errorBody, httpStatus, jsonRpcErrorBody, rpcCode } from '../shared/errors.ts';
import { type BackendFilter, filterFromQuery, TagFilterError } from '../shared/tag-filter.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChangeNotifier } from './notifier.ts';
import type { InitialLoadGate } from './link-types.ts';
import type { Router } from './router.ts';
import { createGatewayServer, sendListChanged } from './server-factory.ts';
import { ListenStreams, narrowedBody, releasedWithStream, requestedResources } from './listen.ts';
import { withFailureFrame } from './failure-frame.ts';
import { withCatalogueCode } from './catalogue-code.ts';
import { onAnswerEnd } from './answer-end.ts';
import { plural } from '../shared/plural.ts';
import { SessionQuota, sessionSlots } from '../shared/session-quota.ts';
import { LegacySseServerTransport } from './sse-transport.ts';
import { bodyText, wholeBodyOf } from './whole-body.ts';

/** A legacy session nobody has used for this long is closed (clients rarely send DELETE). */
export const SESSION_IDLE_MS = 30 * 60_000;
const REAP_INTERVAL_MS = 60_000;
/** At most one log line per this interval about refused sessions. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
// The answer of a 2025 session's call still in flight when its client DELETEs the session.
const SESSION_DELETED = 'The session was ended (DELETE) while this request was in flight: the backend was told to cancel it; whether it took effect is unknown';

// `seen`: what the session's client last saw of each list (at its initialize, or when last told of a
// change); a list it sees through its tag filter is told of only when it differs.
// `open`: its answers and streams still being written (a call under way, a GET or SSE stream): never idle while above 0.
type Session = { server: Server; transport: { close(): Promise<void> }; lastActivity: number; open: number; filter: BackendFilter; seen: ListDigests };

export type McpEndpointsOptions = {
  catalog: Catalog;
  router: Router;
  notifier: ChangeNotifier;
  log: Logger;
  lazyTools?: boolean;
  now?: () => number;
  initialLoad?: InitialLoadGate;
  /** Prefix of this hub's session ids (`h<index>-`). */
  sessionPrefix?: string;
  /** 2025 and SSE sessions the service keeps at most: this hub's quota, shared with the other hubs (none: no cap). */
  sessions?: SessionQuota;
  /** Largest request body the SDK reads (the main thread enforces the same limit first). */
  maxMessageBytes?: number;
};

// 2026-07-28 requests name their method in a header: discovery and lists wait for the initial load.
const waitsForInitialLoad = (method: string | null) => method !== null && (method === 'server/discover' || method.endsWith('/list'));

function jsonRpcError(code: ErrorCode, message: string, rpc?: number): Response {
  return Response.json(jsonRpcErrorBody(code, message, rpc), { status: httpStatus(code) });
}

// A POST's JSON body, read from the bytes that came whole or else from a copy (the request stays
// readable), or undefined when it has none or it is not JSON: the SDK then reads the request
// itself and answers the parse error.
async function jsonBody(request: Request): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  try {
    const text = wholeBodyOf(request) ? await bodyText(request) : await request.clone().text();
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const parsed = (body: unknown) => (body === undefined ? undefined : { parsedBody: body });

function tagFilterOf(request: Request): BackendFilter | Response {
  try {
    return filterFromQuery(new URL(request.url).searchParams);
  } catch (error) {
    if (error instanceof TagFilterError) return Response.json(errorBody(Code.invalid_tag_filter, error.message), { status: httpStatus(Code.invalid_tag_filter) });
    throw error;
  }
}

/** A session to close: nothing of it open (no answer streaming, no GET or SSE stream) and no request since `cutoff`. */
export function isIdle(session: Pick<Session, 'open' | 'lastActivity'>, cutoff: number): boolean {
  return session.open === 0 && session.lastActivity < cutoff;
}

// Runs `fn` the first time only.
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

export function createMcpEndpoints(options: McpEndpointsOptions) {
  const { catalog, router, notifier, log, lazyTools = false, now = Date.now, initialLoad, sessionPrefix = '' } = options;
  const quota = options.sessions ?? new SessionQuota(sessionSlots(1), 0, Infinity);
  const maxSessions = quota.max;
  const maxRequestBodySize = options.maxMessageBytes ?? 16 * 1024 * 1024;
  const streamable = new Map<string, Session>();
  const sse = new Map<string, Session & { transport: LegacySseServerTransport }>();
  const serverFor = (filter: BackendFilter) => createGatewayServer({ catalog, router, filter, lazyTools });
  // A session's answer that streams (a call's SSE answer, a GET stream) keeps it from being idle
  // until the pump has finished with it; its end counts as activity.
  const whileOpen = (session: Session, response: Response): Response => {
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    session.open++;
    return onAnswerEnd(response, () => {
      session.open--;
      session.lastActivity = now();
    });
  };
  let refused = 0;
  let lastRefusalLog = -Infinity;

  // Sessions are capped over both kinds and every hub: past the cap, a 503 JSON-RPC error and a
  // log line a minute. null: a place is taken, which the session gives back when it closes.
  const full = (): Response | null => {
    if (quota.take()) return null;
    refused++;
    if (now() - lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
      log.warn({ code: Code.too_many_sessions, maxSessions, refused }, `session limit reached: ${maxSessions} sessions are open; refused ${plural(refused, 'new one')} (--max-sessions)`);
      lastRefusalLog = now();
      refused = 0;
    }
    return jsonRpcError(Code.too_many_sessions, `Too many sessions: this service keeps at most ${maxSessions} (--max-sessions); close idle sessions or retry later`);
  };

  const modern = createMcpHandler((ctx) => serverFor(ctx.requestInfo ? filterFromQuery(new URL(ctx.requestInfo.url).searchParams) : null), {
    legacy: 'reject',
    maxRequestBodySize,
    onerror: (error) => log.debug({ err: error.message }, 'MCP (2026-07-28) request error'),
  });
  const listens = new ListenStreams(router, (clientUri) => modern.notify.resourceUpdated(clientUri));

  // 2025 clients on /mcp: a session per initialize, with its own Server and its tag filter fixed.
  async function legacy(request: Request, filter: BackendFilter, body: unknown): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const session = streamable.get(id);
      // -32000, not the catalogue's -32001: what this endpoint has always answered.
      if (!session) return jsonRpcError(Code.session_not_found, `Session not found: ${id}`, -32000);
      session.lastActivity = now();
      return whileOpen(session, withFailureFrame(await (session.transport as WebStandardStreamableHTTPServerTransport).handleRequest(request, parsed(body)), body));
    }
    if (request.method !== 'POST') return jsonRpcError(Code.bad_request, 'Bad Request: an Mcp-Session-Id header is required');
    const refusal = full();
    if (refusal) return refusal;
    // A new session's initialize answers with the backends' capabilities and instructions.
    await initialLoad?.settled();
    notifier.flushPending();
    const placed = once(() => quota.release());
    const server = serverFor(filter);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      maxRequestBodySize,
      sessionIdGenerator: () => `${sessionPrefix}${randomUUID()}`,
      // What it has seen is taken as it joins the sessions told of changes: none falls in between.
      onsessioninitialized: (sessionId) => void streamable.set(sessionId, { server, transport, lastActivity: now(), open: 0, filter, seen: catalog.listDigests(filter) }),
      // A DELETE the SDK accepted, before it closes the session: its calls in flight get an answer.
      onsessionclosed: () => server.answerInFlight({ code: rpcCode(Code.call_cancelled), message: SESSION_DELETED, data: { code: Code.call_cancelled } }),
    });
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
      placed();
    };
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, parsed(body));
      if (transport.sessionId === undefined) await server.close();
      return response;
    } finally {
      // No session came of it (a failed initialize): its place goes back.
      if (transport.sessionId === undefined || !streamable.has(transport.sessionId)) placed();
    }
  }

  async function mcp(request: Request): Promise<Response> {
    const filter = tagFilterOf(request);
    if (filter instanceof Response) return filter;
    // The body is parsed once, here: the SDK gets it parsed (the main thread has enforced its size).
    const body = await jsonBody(request);
    // Only 2025 sessions carry a session id: skip the classification for them.
    const isLegacy = request.headers.has('mcp-session-id') || (await isLegacyRequest(request, body, { maxRequestBodySize }));
    if (isLegacy) return legacy(request, filter, body);
    if (initialLoad && !initialLoad.isSettled() && waitsForInitialLoad(request.headers.get('mcp-method'))) await initialLoad.settled();
    // The SDK refuses a 2026-07-28 request whose Mcp-Method header is missing or not its body's method.
    if (request.method === 'POST' && request.headers.get('mcp-method') === 'subscriptions/listen') return withCatalogueCode(await listen(request, filter, body), { anyStatus: true });
    return withFailureFrame(await modern.fetch(request, parsed(body)), body);
  }

  // A listen stream's resourceSubscriptions: subscribed here, acknowledged and delivered by the SDK.
  async function listen(request: Request, filter: BackendFilter, body: unknown): Promise<Response> {
    const uris = requestedResources(body);
    if (!uris) return modern.fetch(request, parsed(body));
    await initialLoad?.settled();
    // Without a backend offering subscribe in this view, the SDK acknowledges no resourceSubscriptions.
    if (catalog.view(filter).capabilities.resources?.subscribe !== true) return modern.fetch(request, parsed(body));
    const { honoured, release } = await listens.open(uris, filter);
    let response: Response;
    try {
      response = await modern.fetch(request, { parsedBody: narrowedBody(body as Record<string, unknown>, honoured) });
    } catch (error) {
      release();
      throw error;
    }
    return releasedWithStream(response, request.signal, release);
  }

  async function openSse(request: Request): Promise<Response> {
    const filter = tagFilterOf(request);
    if (filter instanceof Response) return filter;
    const refusal = full();
    if (refusal) return refusal;
    await initialLoad?.settled();
    notifier.flushPending();
    const transport = new LegacySseServerTransport({
      postPath: '/messages',
      initialRequest: request,
      idPrefix: sessionPrefix,
      onOverflow: (bytes) => log.warn({ code: Code.client_too_slow, session: transport.sessionId, bufferedBytes: bytes }, 'SSE session closed: its client fell too far behind (more than 8 MiB queued)'),
    });
    const placed = once(() => quota.release());
    const server = serverFor(filter);
    const session = { server, transport, lastActivity: now(), open: 0, filter, seen: catalog.listDigests(filter) };
    sse.set(transport.sessionId, session);
    transport.onclose = () => {
      sse.delete(transport.sessionId);
      placed();
    };
    try {
      await server.connect(transport);
    } catch (error) {
      sse.delete(transport.sessionId);
      placed();
      throw error;
    }
    // Its stream is the session: open while the client listens.
    return whileOpen(session, transport.response);
  }

  async function postMessage(request: Request): Promise<Response> {
    const sessionId = new URL(request.url).searchParams.get('sessionId');
    if (!sessionId) return jsonRpcError(Code.bad_request, 'Bad Request: the sessionId query parameter is required (the endpoint event of GET /sse names it)');
    const session = sse.get(sessionId);
    if (!session) return jsonRpcError(Code.session_not_found, `Session not found: ${sessionId}`);
    session.lastActivity = now();
    return session.transport.handlePost(request);
  }

  const unsubscribe = notifier.subscribe((kind) => {
    for (const session of [...streamable.values(), ...sse.values()]) {
      const now = catalog.listDigests(session.filter)[kind];
      if (now === session.seen[kind]) continue;
      session.seen = { ...session.seen, [kind]: now };
      sendListChanged(session.server, kind).catch((error: Error) => log.debug({ err: error.message }, 'could not notify a session'));
    }
    if (kind === 'tools') modern.notify.toolsChanged();
    else if (kind === 'prompts') modern.notify.promptsChanged();
    else modern.notify.resourcesChanged();
  });

  const reaper = setInterval(() => {
    const cutoff = now() - SESSION_IDLE_MS;
    // (no request since the cutoff, nothing of it still streaming)
    for (const [id, session] of [...streamable, ...sse]) {
      if (!isIdle(session, cutoff)) continue;
      log.info({ session: id }, 'closing an idle MCP session');
      void session.server.close().catch(() => undefined);
    }
  }, REAP_INTERVAL_MS);
  reaper.unref();

  return {
    mcp,
    openSse,
    postMessage,
    sessionCount: () => streamable.size + sse.size,
    /** Ends every session (shutdown): clients see their streams close. */
    async close(): Promise<number> {
      clearInterval(reaper);
      unsubscribe();
      const sessions = [...streamable.values(), ...sse.values()];
      await Promise.all(sessions.map((s) => s.server.close().catch(() => undefined)));
      await modern.close();
      return sessions.length;
    },
  };
}
export type McpEndpoints = ReturnType<typeof createMcpEndpoints>;
