// The probe path: request → rate limit → state table → JSON. Nothing here waits on a worker
// and nothing logs per request (decisions §1, §3).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StateTable } from '../state-table.ts';
import type { HealthLevel } from './levels.ts';
import type { HealthRateLimiter, RateDecision } from './rate-limit.ts';
import {
  buildHealthReport,
  buildLivenessReport,
  buildMcpLoadingReport,
  buildMcpServerReport,
  buildReadinessReport,
  type HealthReport,
  type ProcessFacts,
} from './report.ts';
import { Code, errorBody, httpStatus } from '../../shared/errors.ts';
import { notAllowedMessage } from '../../shared/health-path.ts';
import { sanitize } from '../../shared/sanitize.ts';

export type HealthRouteDeps = {
  table: StateTable;
  level: HealthLevel;
  limiter: HealthRateLimiter;
  now: () => number;
  facts: () => ProcessFacts;
  /** Injectable for the 500 path; defaults to buildHealthReport. */
  buildReport?: typeof buildHealthReport;
};

/**
 * An answer ready to write: the body encoded once and the headers as node's flat
 * `[name, value, ...]` list, so a probe within the same millisecond only writes bytes.
 */
type Prepared = { status: number; headers: string[]; body: Buffer };

const BASE_HEADERS = ['Content-Type', 'application/json', 'Cache-Control', 'no-cache, no-store, must-revalidate'];

function prepare(status: number, body: unknown, headers: Record<string, string> = {}): Prepared {
  const bytes = Buffer.from(JSON.stringify(body));
  const flat = [...BASE_HEADERS];
  for (const name in headers) flat.push(name, headers[name]!);
  flat.push('Content-Length', String(bytes.length));
  return { status, headers: flat, body: bytes };
}

function send(res: ServerResponse, answer: Prepared, rateHeaders: string[] | null): void {
  res.writeHead(answer.status, rateHeaders ? answer.headers.concat(rateHeaders) : answer.headers);
  res.end(answer.body);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Producer = (req: IncomingMessage) => Prepared;
/** polka sets `params` (already URI-decoded) on the request it routes. */
type RoutedRequest = IncomingMessage & { params?: Record<string, string | undefined> };

export function createHealthHandlers(deps: HealthRouteDeps) {
  const buildReport = deps.buildReport ?? buildHealthReport;
  const failureBody = (error: unknown, now: number) => {
    const message = deps.level === 'minimal' ? 'The health report could not be built' : sanitize(error) || 'The health report could not be built';
    return { status: 'unhealthy', timestamp: new Date(now).toISOString(), error: Code.health_check_failed, message };
  };

  // Every health route shares the quota; over quota the route's own work is skipped entirely.
  // Unlimited and exempt sources are decided without a promise (the common probe case).
  const limited = (produce: Producer): Handler => (req, res) => {
    const answer = (decision: RateDecision) => {
      if (decision.kind === 'limited') {
        // The health routes' own shape: `status` carries the code, as it carries `healthy` or `unhealthy`.
        const body = { status: Code.rate_limited, error: 'Too many health check requests', timestamp: new Date(deps.now()).toISOString() };
        return send(res, prepare(httpStatus(Code.rate_limited), body, { 'Retry-After': String(decision.retryAfterSeconds) }), decision.headers);
      }
      let result: Prepared;
      try {
        result = produce(req);
      } catch (error) {
        // A throw here would otherwise leave the request hanging and reject unhandled (fatal on the main thread).
        result = prepare(httpStatus(Code.health_check_failed), failureBody(error, deps.now()), { 'X-Health-Status': 'unhealthy' });
      }
      send(res, result, decision.kind === 'unlimited' ? null : decision.headers);
    };
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = deps.limiter.check(req.socket.remoteAddress);
    } catch {
      decision = Promise.reject(new Error('rate limiter failed'));
    }
    if (!(decision instanceof Promise)) return answer(decision);
    decision.then(answer, () =>
      send(res, prepare(httpStatus(Code.rate_limiter_failed), { status: 'unhealthy', timestamp: new Date(deps.now()).toISOString(), error: Code.rate_limiter_failed, message: 'The health rate limiter failed' }), null),
    );
  };
  // Requests within the same millisecond get the same answer (its timestamp has millisecond
  // resolution anyway): under load the report is built, serialized and encoded once per millisecond.
  const coalesced = (build: (now: number) => Prepared): Producer => {
    let at = -1;
    let last: Prepared | null = null;
    return () => {
      const now = deps.now();
      if (last && at === now) return last;
      last = build(now);
      at = now;
      return last;
    };
  };

  const health = limited(coalesced((now) => {
    const facts = deps.facts();
    const factHeaders = { 'X-Service-Version': facts.version, 'X-Uptime-Seconds': String(Math.floor(facts.uptimeSeconds)) };
    let report: HealthReport;
    try {
      report = buildReport(deps.table, deps.level, now, facts);
    } catch (error) {
      return prepare(httpStatus(Code.health_check_failed), failureBody(error, now), { 'X-Health-Status': 'unhealthy', ...factHeaders });
    }
    return prepare(report.httpStatus, report.body, { 'X-Health-Status': report.status, ...factHeaders });
  }));

  const live = limited(coalesced((now) => prepare(200, buildLivenessReport(now))));

  const ready = limited(coalesced((now) => {
    const report = buildReadinessReport(deps.table, deps.level, now);
    return prepare(report.httpStatus, report.body);
  }));

  const mcp = limited(() => {
    const report = buildMcpLoadingReport(deps.table, deps.level, deps.now());
    return prepare(report.httpStatus, report.body);
  });

  const mcpServer = limited((req) => {
    const report = buildMcpServerReport(deps.table, (req as RoutedRequest).params?.serverName ?? '', deps.level, deps.now());
    return prepare(report.httpStatus, report.body);
  });

  // Another method than GET or HEAD: a health answer all the same (its headers, the quota), 405.
  const refuse = limited((req) => {
    const path = (req.url ?? '/').split('?')[0]!;
    return prepare(httpStatus(Code.method_not_allowed), errorBody(Code.method_not_allowed, notAllowedMessage(req.method ?? '', path)), { Allow: 'GET, HEAD' });
  });
  // Its body is read and dropped, over quota too, so the connection stays usable.
  const notAllowed: Handler = (req, res) => {
    req.resume();
    refuse(req, res);
  };

  return { health, live, ready, mcp, mcpServer, notAllowed };
}
