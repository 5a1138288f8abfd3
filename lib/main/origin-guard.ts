// The Host and Origin check of every non-health route (MCP transport rules; DNS rebinding).
// A browser page can make requests to a service on 127.0.0.1 under a name it controls, so:
// - a request carrying an `Origin` must come from an allowed origin (default: the service's own);
// - on a loopback listener, the `Host` must be a loopback name with the service's port.
// Requests without `Origin` (non-browser clients) pass. Pure: built once after listening.
import net from 'node:net';
import { Code, errorBody, httpStatus } from '../shared/errors.ts';

export type OriginGuardOptions = {
  /** The address the service listens on (`--host`). */
  listenHost: string;
  /** The port it actually listens on. */
  port: number;
  /** `--allowed-origins`: origins (`scheme://host[:port]`) admitted besides the service's own, or `*`. */
  allowedOrigins: string[];
  /**
   * `--allowed-hosts`: `host` or `host:port` entries admitted besides the loopback names of a
   * loopback listener, or `*`. Without entries, a non-loopback listener checks no Host.
   */
  allowedHosts: string[];
  /** Addresses of this machine, for the own origins of a wildcard listener. */
  interfaceAddresses: string[];
};

export type GuardRejection = { status: number; body: { error: typeof Code.forbidden_origin | typeof Code.forbidden_host; message: string } };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** Whether `host` (an address or name) is a loopback one. */
export function isLoopback(host: string): boolean {
  const h = stripBrackets(host.toLowerCase());
  return h === 'localhost' || h.endsWith('.localhost') || (net.isIPv4(h) && h.startsWith('127.')) || h === '::1' || h === '::ffff:127.0.0.1';
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

// `host` with its port as a Host header or origin authority writes it (IPv6 in brackets).
function authority(host: string, port: number): string {
  const h = stripBrackets(host.toLowerCase());
  return `${net.isIPv6(h) ? `[${h}]` : h}:${port}`;
}

/** Splits a Host header (`name`, `name:port`, `[v6]:port`) into a lower-case host and a port. */
export function parseHostHeader(value: string): { host: string; port: number | null } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return null;
  return { host: stripBrackets(m[1]!.toLowerCase()), port: m[2] === undefined ? null : Number(m[2]) };
}

function normalizeOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.origin === 'null') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

type GuardCheck = ((headers: { host?: string | undefined; origin?: string | undefined }) => GuardRejection | null) & {
  /** Whether `origin` is one of the service's own or listed by name in --allowed-origins (not by `*`, never `null`): the origins that get CORS. */
  named(origin: string): boolean;
};

export function createOriginGuard(options: OriginGuardOptions): GuardCheck {
  const anyOrigin = options.allowedOrigins.includes('*');
  const anyHost = options.allowedHosts.includes('*');
  const wildcard = options.listenHost === '0.0.0.0' || options.listenHost === '::' || options.listenHost === '';
  const ownHosts = new Set([...LOOPBACK_NAMES, ...(wildcard ? options.interfaceAddresses : [options.listenHost])]);
  const origins = new Set([
    // Normalized as a browser sends them: `http://localhost:80` is `http://localhost`.
    ...[...ownHosts].map((h) => normalizeOrigin(`http://${authority(h, options.port)}`) ?? `http://${authority(h, options.port)}`),
    ...options.allowedOrigins.filter((o) => o !== '*').map((o) => normalizeOrigin(o) ?? o.toLowerCase()),
  ]);
  const hostEntries = options.allowedHosts.filter((h) => h !== '*').map((h) => parseHostHeader(h)).filter((h) => h !== null);
  const loopbackListener = isLoopback(options.listenHost);
  const checkHosts = !anyHost && (hostEntries.length > 0 || loopbackListener);

  const hostAllowed = (header: string | undefined): boolean => {
    const parsed = header === undefined ? null : parseHostHeader(header);
    if (!parsed) return false;
    // A Host without a port is port 80 (HTTP): what a browser sends for a service on port 80.
    if (loopbackListener && isLoopback(parsed.host) && (parsed.port ?? 80) === options.port) return true;
    // An entry without a port admits that host on any port.
    return hostEntries.some((e) => e.host === parsed.host && (e.port === null || e.port === (parsed.port ?? 80)));
  };

  const check = (headers: { host?: string | undefined; origin?: string | undefined }): GuardRejection | null => {
    if (checkHosts && !hostAllowed(headers.host)) {
      const shown = headers.host === undefined ? 'missing' : JSON.stringify(headers.host);
      return {
        status: httpStatus(Code.forbidden_host),
        body: errorBody(
          Code.forbidden_host,
          loopbackListener
            ? `Host header ${shown} is not allowed: expected localhost, 127.0.0.1 or [::1] with port ${options.port}, or a host given with --allowed-hosts`
            : `Host header ${shown} is not allowed: expected one of the hosts given with --allowed-hosts`,
        ),
      };
    }
    if (headers.origin !== undefined && !anyOrigin) {
      const origin = normalizeOrigin(headers.origin);
      if (origin === null || !origins.has(origin)) {
        return {
          status: httpStatus(Code.forbidden_origin),
          body: errorBody(
            Code.forbidden_origin,
            origin === null
              ? // "null" (a file:// page, a sandboxed frame) or no origin at all: --allowed-origins takes only scheme://host[:port].
                `Origin header ${JSON.stringify(headers.origin)} is not allowed: it names no site, so --allowed-origins cannot admit it by name ('*' admits every origin)`
              : `Origin header ${JSON.stringify(headers.origin)} is not allowed; admit it with --allowed-origins ${headers.origin}`,
          ),
        };
      }
    }
    return null;
  };
  return Object.assign(check, {
    named(origin: string) {
      const normalized = normalizeOrigin(origin);
      return normalized !== null && origins.has(normalized);
    },
  });
}
export type OriginGuard = ReturnType<typeof createOriginGuard>;
