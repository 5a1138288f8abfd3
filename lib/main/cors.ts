// CORS for the browser origins the Origin check admitted (`--allowed-origins`, the service's own):
// a page there (the MCP Inspector in direct mode, say) may call the MCP routes. A preflight is
// answered here on the main thread; other answers get the headers a browser needs to read them
// (the session id above all). Requests without an Origin (non-browser clients) get none.
import type { IncomingMessage, ServerResponse } from 'node:http';

// The MCP routes take POST and DELETE too; health and the REST views are read only.
const MCP_METHODS = 'GET, POST, DELETE';
const READ_METHODS = 'GET, HEAD';
const MCP_ROUTE = /^\/(?:mcp|sse|messages)(?:[/?]|$)/;

/** The methods a preflight for `url` is told the route takes. */
export function allowedMethods(url: string | undefined): string {
  return MCP_ROUTE.test(url ?? '/') ? MCP_METHODS : READ_METHODS;
}
// What a client reads from an answer besides the CORS-safelisted headers.
const EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, WWW-Authenticate';
const PREFLIGHT_MAX_AGE_SECONDS = '600';
// The request headers a preflight may ask for when it names none that we could echo.
const DEFAULT_ALLOWED_HEADERS = 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';

/** A preflight (OPTIONS with Access-Control-Request-Method) from an admitted origin: answered, true. Else the headers are set for the answer to come, false. */
export function applyCors(req: IncomingMessage, res: ServerResponse, origin: string): boolean {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    const asked = req.headers['access-control-request-headers'];
    req.resume();
    res.writeHead(204, {
      'Access-Control-Allow-Methods': allowedMethods(req.url),
      'Access-Control-Allow-Headers': typeof asked === 'string' && asked.trim() ? asked : DEFAULT_ALLOWED_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
      'Content-Length': '0',
    });
    res.end();
    return true;
  }
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  return false;
}
