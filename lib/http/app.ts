// The polka application of the main thread: health routes now, the MCP endpoint and REST later.
import polka from 'polka';
import type { HealthRouteDeps } from '../health/routes.ts';
import { createHealthHandlers } from '../health/routes.ts';

export function createApp(health: HealthRouteDeps) {
  const handlers = createHealthHandlers(health);
  return polka({
    onNoMatch: (_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', message: 'No such route' }));
    },
  })
    .get('/health', handlers.health)
    .get('/health/live', handlers.live)
    .get('/health/ready', handlers.ready);
}
