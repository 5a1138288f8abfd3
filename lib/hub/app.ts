// The hub's routes: every request the main thread forwards (all but the health routes) lands
// here as a web Request and leaves as a Response.
import type { McpEndpoints } from './http.ts';
import type { RestHandlers } from './rest.ts';
import { Code, errorBody, httpStatus, Messages } from '../shared/errors.ts';

export type HubApp = (request: Request) => Promise<Response>;

const notFound = () => Response.json(errorBody(Code.not_found, Messages.noSuchRoute), { status: httpStatus(Code.not_found) });

export function createHubApp({ mcp, rest }: { mcp: McpEndpoints | null; rest: RestHandlers }): HubApp {
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (mcp) {
      if (path === '/mcp') return mcp.mcp(request);
      if (path === '/sse' && request.method === 'GET') return mcp.openSse(request);
      if (path === '/messages' && request.method === 'POST') return mcp.postMessage(request);
    }
    if (request.method !== 'GET' || !path.startsWith('/api/v1/')) return notFound();
    switch (path) {
      case '/api/v1/servers':
        return rest.servers(request);
      case '/api/v1/tools':
        return rest.tools(request);
      case '/api/v1/resources':
        return rest.resources(request);
      case '/api/v1/prompts':
        return rest.prompts(request);
    }
    const tool = /^\/api\/v1\/tools\/([^/]+)\/([^/]+)$/.exec(path);
    if (!tool) return notFound();
    try {
      return rest.tool(request, { server: decodeURIComponent(tool[1]!), tool: decodeURIComponent(tool[2]!) });
    } catch {
      return notFound(); // a malformed %-escape
    }
  };
}
