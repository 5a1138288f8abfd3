// The probe path: request → rate limit → state table → JSON. Nothing here waits on a worker
// and nothing logs per request (decisions §1, §3).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StateTable } from '../state-table.ts';
import type { HealthLevel } from './levels.ts';
import type { HealthRateLimiter } from './rate-limit.ts';
import {
  buildHealthReport,
  buildLivenessReport,
  buildMcpLoadingReport,
  buildMcpServerReport,
  buildReadinessReport,
  type HealthReport,
  type ProcessFacts,
} from './report.ts';
import { Code, httpStatus } from '../../shared/errors.ts';
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

const BASE_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, no-store, must-revalidate' };

/** A body already serialized (a coalesced report). */
class Serialized {
  constructor(readonly text: string) {}
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = body instanceof Serialized ? body.text : JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Producer = (extraHeaders: Record<string, string>, req: IncomingMessage) => { status: number; body: unknown; headers?: Record<string, string> };
/** polka sets `params` (already URI-decoded) on the request it routes. */
type RoutedRequest = IncomingMessage & { params?: Record<string, string | undefined> };

export function createHealthHandlers(deps: HealthRouteDeps) {
  const buildReport = deps.buildReport ?? buildHealthReport;
  const failureBody = (error: unknown, now: number) => {
    const message = deps.level === 'minimal' ? 'The health report could not be built' : sanitize(error) || 'The health report could not be built';
    return { status: 'unhealthy', timestamp: new Date(now).toISOString(), error: Code.health_check_failed, message };
  };

  // Every health route shares the quota; over quota the route's own work is skipped entirely.
  const limited = (produce: Producer): Handler => (req, res) => {
    deps.limiter.check(req.socket.remoteAddress).then(
      (decision) => {
        if (decision.kind === 'limited') {
          // The health routes' own shape: `status` carries the code, as it carries `healthy` or `unhealthy`.
          const body = { status: Code.rate_limited, error: 'Too many health check requests', timestamp: new Date(deps.now()).toISOString() };
          return send(res, httpStatus(Code.rate_limited), body, { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) });
        }
        const rateHeaders = decision.kind === 'unlimited' ? {} : decision.headers;
        let result: ReturnType<Producer>;
        try {
          result = produce(rateHeaders, req);
        } catch (error) {
          // A throw here would otherwise leave the request hanging and reject unhandled (fatal on the main thread).
          result = { status: httpStatus(Code.health_check_failed), body: failureBody(error, deps.now()), headers: { 'X-Health-Status': 'unhealthy' } };
        }
        send(res, result.status, result.body, { ...rateHeaders, ...result.headers });
      },
      () => send(res, httpStatus(Code.rate_limiter_failed), { status: 'unhealthy', timestamp: new Date(deps.now()).toISOString(), error: Code.rate_limiter_failed, message: 'The health rate limiter failed' }, {}),
    );
  };

  // Requests within the same millisecond get the same report (its timestamp has millisecond
  // resolution anyway): under load the report is built and serialized once per millisecond.
  const coalesced = <T extends { status: number; body: unknown; headers?: Record<string, string> }>(build: (now: number) => T) => {
    let at = -1;
    let last: { status: number; body: Serialized; headers?: Record<string, string> } | null = null;
    return () => {
      const now = deps.now();
      if (last && at === now) return last;
      const result = build(now);
      last = { ...result, body: new Serialized(JSON.stringify(result.body)) };
      at = now;
      return last;
    };
  };

  const health = limited(coalesced((now) => {
    const facts = deps.facts();
    let report: HealthReport;
    try {
      report = buildReport(deps.table, deps.level, now, facts);
    } catch (error) {
      return {
        status: httpStatus(Code.health_check_failed),
        body: failureBody(error, now),
        headers: { 'X-Health-Status': 'unhealthy', 'X-Service-Version': facts.version, 'X-Uptime-Seconds': String(Math.floor(facts.uptimeSeconds)) },
      };
    }
    return {
      status: report.httpStatus,
      body: report.body,
      headers: { 'X-Health-Status': report.status, 'X-Service-Version': facts.version, 'X-Uptime-Seconds': String(Math.floor(facts.uptimeSeconds)) },
    };
  }));

  const live = limited(() => ({ status: 200, body: buildLivenessReport(deps.now()) }));

  const ready = limited(coalesced((now) => {
    const report = buildReadinessReport(deps.table, deps.level, now);
    return { status: report.httpStatus as number, body: report.body as unknown };
  }));

  const mcp = limited(() => {
    const report = buildMcpLoadingReport(deps.table, deps.level, deps.now());
    return { status: report.httpStatus, body: report.body };
  });

  const mcpServer = limited((_headers, req) => {
    const report = buildMcpServerReport(deps.table, (req as RoutedRequest).params?.serverName ?? '', deps.level, deps.now());
    return { status: report.httpStatus, body: report.body };
  });

  return { health, live, ready, mcp, mcpServer };
}
