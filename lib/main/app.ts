// The polka application of the main thread: health routes, the client-facing MCP endpoints and
// the read-only REST views.
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka from 'polka';
import type { OriginGuard } from './origin-guard.ts';
import type { HealthRouteDeps } from './health/routes.ts';
import { createHealthHandlers } from './health/routes.ts';
import type { McpEndpoints } from '../hub/http.ts';
import type { RestHandlers } from '../hub/rest.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

// Every route but health passes the Host/Origin check first (DNS rebinding).
function guarded(guard: () => OriginGuard | null, handler: Handler): Handler {
  return (req, res) => {
    const rejection = guard()?.({ host: req.headers.host, origin: req.headers.origin });
    if (!rejection) return handler(req, res);
    const text = JSON.stringify(rejection.body);
    res.writeHead(rejection.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
}

export function createApp(health: HealthRouteDeps, guard: () => OriginGuard | null, mcp?: McpEndpoints, rest?: RestHandlers) {
  const handlers = createHealthHandlers(health);
  const g = (handler: Handler) => guarded(guard, handler);
  const app = polka({
    onNoMatch: (_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', message: 'No such route' }));
    },
  })
    .get('/health', handlers.health)
    .get('/health/live', handlers.live)
    .get('/health/ready', handlers.ready)
    .get('/health/mcp', handlers.mcp)
    .get('/health/mcp/:serverName', handlers.mcpServer);
  if (mcp) app.all('/mcp', g(mcp.mcp)).get('/sse', g(mcp.openSse)).post('/messages', g(mcp.postMessage));
  if (rest) {
    app
      .get('/api/v1/servers', g(rest.servers))
      .get('/api/v1/tools', g(rest.tools))
      .get('/api/v1/tools/:server/:tool', g(rest.tool as Handler))
      .get('/api/v1/resources', g(rest.resources))
      .get('/api/v1/prompts', g(rest.prompts));
  }
  return app;
}
