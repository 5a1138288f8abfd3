// The hub's routes: every request the main thread forwards (all but the health routes) lands
// here as a web Request and leaves as a Response.
import { withCatalogueCode } from './catalogue-code.ts';
import type { McpEndpoints } from './http.ts';
import type { RestHandlers } from './rest.ts';
import { Code, errorBody, httpStatus, jsonRpcErrorBody, Messages } from '../shared/errors.ts';
import { HEALTH_PATH, notAllowedMessage } from '../shared/health-path.ts';

export type HubApp = (request: Request) => Promise<Response>;

const notFound = () => Response.json(errorBody(Code.not_found, Messages.noSuchRoute), { status: httpStatus(Code.not_found) });

// The MCP endpoints' methods; another method gets 405 naming them (a JSON-RPC error, as the endpoints answer).
const MCP_ROUTES: Record<string, { methods: string[]; use: string }> = {
  '/mcp': { methods: ['GET', 'POST', 'DELETE'], use: "POST (requests), GET (a 2025 session's stream) or DELETE (end a 2025 session)" },
  '/sse': { methods: ['GET'], use: 'GET (opens a legacy SSE session)' },
  '/messages': { methods: ['POST'], use: 'POST (a legacy SSE session\'s messages)' },
};

// Routes that take GET and HEAD only. The health routes are the main thread's, which answers
// another method on them itself but a CORS preflight; a REST view answers HEAD as GET.
const REST_PATH = /^\/api\/v1\/(?:servers|tools|resources|prompts|tools\/[^/]+\/[^/]+)$/;

function notAllowed(path: string, method: string, route: { methods: string[]; use: string }): Response {
  return Response.json(jsonRpcErrorBody(Code.method_not_allowed, `Method ${method} is not allowed on ${path}; use ${route.use}`, -32000), {
    status: httpStatus(Code.method_not_allowed),
    headers: { allow: route.methods.join(', ') },
  });
}

export function createHubApp({ mcp, rest }: { mcp: McpEndpoints | null; rest: RestHandlers }): HubApp {
  return async (request) => {
    const path = new URL(request.url).pathname;
    const route = mcp ? MCP_ROUTES[path] : undefined;
    if (mcp && route) {
      if (!route.methods.includes(request.method)) return notAllowed(path, request.method, route);
      if (path === '/mcp') return withCatalogueCode(await mcp.mcp(request));
      return withCatalogueCode(await (path === '/sse' ? mcp.openSse(request) : mcp.postMessage(request)));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && (HEALTH_PATH.test(path) || REST_PATH.test(path))) {
      return Response.json(errorBody(Code.method_not_allowed, notAllowedMessage(request.method, path)), {
        status: httpStatus(Code.method_not_allowed),
        headers: { allow: 'GET, HEAD' },
      });
    }
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !path.startsWith('/api/v1/')) return notFound();
    // HEAD is answered as GET, without the body (found by an outside check: it was 404 while Allow named it).
    const answer = await restView(request, path, rest);
    return request.method === 'HEAD' ? new Response(null, { status: answer.status, headers: answer.headers }) : answer;
  };
}

// The REST views (GET; HEAD as GET): their own answers, or 404.
async function restView(request: Request, path: string, rest: RestHandlers): Promise<Response> {
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
}
