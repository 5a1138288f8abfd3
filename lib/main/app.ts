// The main thread's HTTP application: the health routes, answered inline from the state table,
// and everything else forwarded as bytes to a hub after the Host/Origin check (decisions §1).
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka from 'polka';
import { Code, errorBody, httpStatus } from '../shared/errors.ts';
import { createHealthHandlers, type HealthRouteDeps } from './health/routes.ts';
import { HEALTH_PATH } from '../shared/health-path.ts';
import { writeJson } from './json-answer.ts';
import type { OriginGuard } from './origin-guard.ts';
import { applyCors } from './cors.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

// A CORS preflight: OPTIONS from a page's origin with the method it means to use (Fetch standard).
const isPreflight = (req: IncomingMessage) => req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

// More than one Host header line: node keeps the first for `req.headers.host`, the hub would see
// them joined; RFC 9112 §3.2 answers 400.
function hostLines(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

// Every route but health passes the Host/Origin check first (DNS rebinding); an admitted browser
// origin gets CORS (cors.ts).
function guarded(guard: () => OriginGuard | null, handler: Handler): Handler {
  return (req, res) => {
    if (hostLines(req.rawHeaders) > 1) {
      req.resume();
      return writeJson(res, httpStatus(Code.bad_request), errorBody(Code.bad_request, 'Bad Request: more than one Host header'));
    }
    const check = guard();
    const rejection = check?.({ host: req.headers.host, origin: req.headers.origin });
    if (!rejection) {
      // CORS for the origins named (`*` admits requests, but gives no page the right to read answers).
      const origin = req.headers.origin;
      if (origin !== undefined && check?.named(origin) && applyCors(req, res, origin)) return;
      return handler(req, res);
    }
    req.resume();
    writeJson(res, rejection.status, rejection.body);
  };
}

/** The path and query of an absolute-form target (`http://host:port/path?q`); any other target as it is. */
export function originForm(target: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!match) return target;
  const rest = target.slice(match[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** `forward` hands a request to a hub (or answers 503 when none is up). */
export function createApp(health: HealthRouteDeps, guard: () => OriginGuard | null, forward: Handler) {
  const handlers = createHealthHandlers(health);
  // The probes' exact paths skip polka's route loop and the properties it sets on each request
  // (about 4.5 µs of a /health answer's 25-35 µs, `benchmarks/health-path.ts`); polka routes the
  // rest: other spellings (`/health/`, HEAD), `/health/mcp/:serverName` and everything forwarded.
  const exact = new Map<string, Handler>([
    ['/health', handlers.health],
    ['/health/live', handlers.live],
    ['/health/ready', handlers.ready],
    ['/health/mcp', handlers.mcp],
  ]);
  const router = polka({ onNoMatch: guarded(guard, forward) }).get('/health/mcp/:serverName', handlers.mcpServer);
  for (const [path, handler] of exact) router.get(path, handler);
  const routed = router.handler.bind(router) as unknown as Handler;
  return {
    handler(req: IncomingMessage, res: ServerResponse): void {
      // An absolute-form target (`GET http://host/health`, as a proxy sends it) is routed by its path, as the hub does.
      if (req.url !== undefined && req.url.charCodeAt(0) !== 47) req.url = originForm(req.url);
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const path = query < 0 ? url : url.slice(0, query);
      if (req.method === 'GET') {
        const probe = exact.get(path);
        if (probe) return probe(req, res);
      } else if (req.method !== 'HEAD' && !isPreflight(req) && HEALTH_PATH.test(path)) {
        // A health route's answer, headers and quota included; a CORS preflight goes the CORS way.
        return handlers.notAllowed(req, res);
      }
      routed(req, res);
    },
  };
}
