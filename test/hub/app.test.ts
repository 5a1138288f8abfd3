import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHubApp } from '../../lib/hub/app.ts';
import type { McpEndpoints } from '../../lib/hub/http.ts';
import type { RestHandlers } from '../../lib/hub/rest.ts';

// Each handler answers with its own name (and the params it was given), so a test sees the route.
const named = (name: string) => async (_request: Request, params?: Record<string, string>) => Response.json({ handler: name, ...(params ? { params } : {}) });
const mcp = { mcp: named('mcp'), openSse: named('openSse'), postMessage: named('postMessage') } as unknown as McpEndpoints;
const rest = { servers: named('servers'), tools: named('tools'), tool: named('tool'), resources: named('resources'), prompts: named('prompts') } as unknown as RestHandlers;

const call = async (app: ReturnType<typeof createHubApp>, method: string, path: string) => {
  const response = await app(new Request(`http://localhost${path}`, { method }));
  return { status: response.status, text: await response.text() };
};
const NO_ROUTE = { status: 404, text: '{"error":"not_found","message":"No such route"}' };

test('hub app :: the MCP endpoints by path and method', async () => {
  const app = createHubApp({ mcp, rest });
  assert.is((await call(app, 'POST', '/mcp')).text, '{"handler":"mcp"}');
  assert.is((await call(app, 'DELETE', '/mcp')).text, '{"handler":"mcp"}');
  assert.is((await call(app, 'GET', '/sse')).text, '{"handler":"openSse"}');
  assert.is((await call(app, 'POST', '/messages?sessionId=x')).text, '{"handler":"postMessage"}');
});

test('hub app :: another method on an MCP endpoint is 405 with the ones it takes', async () => {
  const app = createHubApp({ mcp, rest });
  for (const [method, path, allow] of [
    ['PUT', '/mcp', 'GET, POST, DELETE'],
    ['HEAD', '/mcp', 'GET, POST, DELETE'],
    ['POST', '/sse', 'GET'],
    ['GET', '/messages', 'POST'],
  ] as const) {
    const response = await app(new Request(`http://localhost${path}`, { method }));
    assert.is(response.status, 405, `${method} ${path}`);
    assert.is(response.headers.get('allow'), allow, `${method} ${path}`);
    if (method !== 'HEAD') assert.match(await response.text(), `Method ${method} is not allowed on ${path}`);
  }
});

test('hub app :: the REST views, GET only; one tool with its names decoded', async () => {
  const app = createHubApp({ mcp, rest });
  for (const view of ['servers', 'tools', 'resources', 'prompts']) assert.is((await call(app, 'GET', `/api/v1/${view}?x=1`)).text, `{"handler":"${view}"}`);
  assert.is((await call(app, 'GET', '/api/v1/tools/my%20server/a_agent_echo')).text, '{"handler":"tool","params":{"server":"my server","tool":"a_agent_echo"}}');
  assert.equal(await call(app, 'GET', '/api/v1/other'), NO_ROUTE);
  assert.equal(await call(app, 'GET', '/api/v1/tools/a/b/c'), NO_ROUTE);
  assert.equal(await call(app, 'GET', '/api/v1/tools/%E0%A4%A/x'), NO_ROUTE, 'a malformed escape is no route, not a 500');
  assert.equal(await call(app, 'GET', '/'), NO_ROUTE);
});

test('hub app :: another method on a REST view or a health route (the main thread answers those but OPTIONS) is 405, GET and HEAD named', async () => {
  const app = createHubApp({ mcp, rest });
  for (const [method, path] of [
    ['POST', '/api/v1/servers'],
    ['DELETE', '/api/v1/tools/a/b'],
    ['POST', '/health'],
    ['PUT', '/health/'],
    ['POST', '/Health/Ready'],
    ['DELETE', '/health/mcp/some%20server'],
  ] as const) {
    const response = await app(new Request(`http://localhost${path}`, { method }));
    assert.is(response.status, 405, `${method} ${path}`);
    assert.is(response.headers.get('allow'), 'GET, HEAD', `${method} ${path}`);
    assert.equal(await response.json(), { error: 'method_not_allowed', message: `Method ${method} is not allowed on ${path}; use GET or HEAD` });
  }
  assert.equal(await call(app, 'POST', '/health/other'), NO_ROUTE, 'a path that is no health route stays 404');
  assert.equal(await call(app, 'POST', '/api/v1/servers/x'), NO_ROUTE);
});

test('hub app :: HEAD on a REST view is its GET without the body (found by an outside check: 404 while Allow named HEAD)', async () => {
  const app = createHubApp({ mcp, rest });
  for (const path of ['/api/v1/servers', '/api/v1/tools?server=a', '/api/v1/resources', '/api/v1/prompts', '/api/v1/tools/a/echo']) {
    const get = await app(new Request(`http://localhost${path}`));
    const head = await app(new Request(`http://localhost${path}`, { method: 'HEAD' }));
    assert.equal([head.status, head.headers.get('content-type')], [get.status, get.headers.get('content-type')], path);
    assert.is(await head.text(), '', `${path}: no body`);
  }
  assert.equal(await call(app, 'HEAD', '/api/v1/nothing'), { status: 404, text: '' }, 'no such view: 404, no body either');
});

test('hub app :: without MCP endpoints (stdio mode) only REST answers', async () => {
  const app = createHubApp({ mcp: null, rest });
  assert.equal(await call(app, 'POST', '/mcp'), NO_ROUTE);
  assert.equal(await call(app, 'GET', '/sse'), NO_ROUTE);
  assert.is((await call(app, 'GET', '/api/v1/servers')).text, '{"handler":"servers"}');
});

test.run();
