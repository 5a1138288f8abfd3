// The polka application of the main thread: health routes, the client-facing MCP endpoints and
// the read-only REST views.
import polka from 'polka';
import type { HealthRouteDeps } from './health/routes.ts';
import { createHealthHandlers } from './health/routes.ts';
import type { McpEndpoints } from '../hub/http.ts';
import type { RestHandlers } from '../hub/rest.ts';

export function createApp(health: HealthRouteDeps, mcp?: McpEndpoints, rest?: RestHandlers) {
  const handlers = createHealthHandlers(health);
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
  if (mcp) app.all('/mcp', mcp.mcp).get('/sse', mcp.openSse).post('/messages', mcp.postMessage);
  if (rest) {
    app
      .get('/api/v1/servers', rest.servers)
      .get('/api/v1/tools', rest.tools)
      .get('/api/v1/tools/:server/:tool', rest.tool)
      .get('/api/v1/resources', rest.resources)
      .get('/api/v1/prompts', rest.prompts);
  }
  return app;
}
