import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendSource } from '../../lib/hub/backends.ts';
import { createRestHandlers } from '../../lib/hub/rest.ts';
import type { TokenEstimator } from '../../lib/hub/token-estimator.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';

// Counts are the token worker's job; here a count is the length of what it is given.
const tokens = { count: async (value: unknown) => JSON.stringify(value).length } as unknown as TokenEstimator;

function setup(disabled: string[] = []) {
  const backends = new Map<string, BackendState>();
  const source: BackendSource = { get: (n) => backends.get(n), all: () => backends.values(), disabled: () => disabled };
  const add = (name: string, phase: BackendState['phase'] = 'connected') => {
    const b = newBackendState(name, ['local'], null);
    b.phase = phase;
    b.protocolVersion = '2025-06-18';
    b.lastConnected = Date.now();
    b.inventory = {
      tools: [
        { name: 'echo', description: 'Echo', inputSchema: { type: 'object' } },
        { name: 'env', description: 'Env', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      ],
      resources: [{ uri: 'file://a', name: 'a' }],
      prompts: [{ name: 'greet' }],
      resourceTemplates: [{ uriTemplate: 'file://{x}', name: 't' }],
    };
    backends.set(name, b);
    return b;
  };
  return { rest: createRestHandlers({ source, tokens }), add, backends };
}

const get = (path: string) => new Request(`http://localhost${path}`);
const json = async (response: Response) => ({ status: response.status, cache: response.headers.get('cache-control'), body: (await response.json()) as Record<string, any> });

test('rest :: servers lists backends with their counts, and disabled servers', async () => {
  const { rest, add } = setup(['off']);
  const a = add('a');
  a.toolPolicy = { disabledTools: ['env'], toolDescriptionOverrides: {} };
  add('b', 'failed');
  const { status, cache, body } = await json(await rest.servers(get('/api/v1/servers')));
  assert.is(status, 200);
  assert.is(cache, 'no-store');
  assert.equal(body.servers, [
    { name: 'a', status: 'connected', healthy: true, tags: ['local'], protocolVersion: '2025-06-18', tools: 2, enabledTools: 1, resources: 1, prompts: 1 },
    { name: 'b', status: 'error', healthy: false, tags: ['local'], protocolVersion: '2025-06-18', tools: 2, enabledTools: 2, resources: 1, prompts: 1 },
    { name: 'off', status: 'disabled', healthy: false, tags: [], protocolVersion: null, tools: 0, enabledTools: 0, resources: 0, prompts: 0 },
  ]);
});

test('rest :: tools carry effective descriptions, enabled flags and tokens; the total counts enabled tools only', async () => {
  const { rest, add } = setup();
  const a = add('a');
  a.toolPolicy = { disabledTools: ['a_agent_env'], toolDescriptionOverrides: { echo: 'Repeat it' } };
  const { body } = await json(await rest.tools(get('/api/v1/tools')));
  const [echo, env] = body.tools;
  assert.equal(
    { ...echo, tokens: undefined },
    { server: 'a', name: 'echo', qualifiedName: 'a_agent_echo', description: 'Repeat it', upstreamDescription: 'Echo', overridden: true, enabled: true, tokens: undefined },
  );
  assert.is(echo.tokens, JSON.stringify({ name: 'a_agent_echo', description: 'Repeat it', inputSchema: { type: 'object' } }).length);
  assert.is(env.enabled, false);
  assert.is(env.overridden, false);
  assert.is(body.totalTokens, echo.tokens);
  assert.not.ok('inputSchema' in echo, 'the list has no schemas');
});

test('rest :: ?server= narrows every list; a disabled server lists nothing; an unknown one is 404 with the catalogue body', async () => {
  const { rest, add } = setup(['off']);
  add('a');
  add('b');
  const only = await json(await rest.tools(get('/api/v1/tools?server=b')));
  assert.equal([...new Set(only.body.tools.map((t: { server: string }) => t.server))], ['b']);
  // /resources and /prompts took no notice of ?server= (found by an outside check).
  const views = [
    ['resources', (r: Request) => rest.resources(r), (body: { resources: { server: string }[]; resourceTemplates: { server: string }[] }) => [...body.resources, ...body.resourceTemplates]],
    ['prompts', (r: Request) => rest.prompts(r), (body: { prompts: { server: string }[] }) => body.prompts],
    ['tools', (r: Request) => rest.tools(r), (body: { tools: { server: string }[] }) => body.tools],
  ] as const;
  for (const [view, handler, items] of views) {
    const all = items((await json(await handler(get(`/api/v1/${view}`)))).body as never);
    assert.ok(new Set(all.map((i) => i.server)).size === 2, `${view}: both servers without the filter`);
    const narrowed = items((await json(await handler(get(`/api/v1/${view}?server=a`)))).body as never);
    assert.ok(narrowed.length > 0 && narrowed.every((i) => i.server === 'a'), `${view}: only a`);
    // A disabled server is in /servers with nothing to list: an empty list, not 404.
    const off = await handler(get(`/api/v1/${view}?server=off`));
    assert.is(off.status, 200, view);
    assert.equal(items((await off.json()) as never), [], view);
    const missing = await handler(get(`/api/v1/${view}?server=zz`));
    assert.is(missing.status, 404, view);
    assert.is(await missing.text(), `{"error":"not_found","message":"Server 'zz' not found"}`);
  }
});

test('rest :: one tool by its name or qualified name, with its schema and annotations', async () => {
  const { rest, add } = setup();
  add('a');
  for (const name of ['env', 'a_agent_env']) {
    const { status, body } = await json(await rest.tool(get('/'), { server: 'a', tool: name }));
    assert.is(status, 200);
    assert.equal([body.qualifiedName, body.inputSchema, body.annotations], ['a_agent_env', { type: 'object' }, { readOnlyHint: true }]);
  }
  assert.is(await (await rest.tool(get('/'), { server: 'a', tool: 'nope' })).text(), `{"error":"not_found","message":"Tool 'nope' not found on server 'a'"}`);
  assert.is(await (await rest.tool(get('/'), { server: 'zz', tool: 'env' })).text(), `{"error":"not_found","message":"Server 'zz' not found"}`);
});

test('rest :: resources, templates and prompts are qualified and keep their upstream names', async () => {
  const { rest, add } = setup();
  add('a');
  const resources = (await json(await rest.resources(get('/api/v1/resources')))).body;
  assert.equal(resources.resources, [{ server: 'a', uri: 'a_agent_file://a', name: 'a', upstreamUri: 'file://a' }]);
  assert.equal(resources.resourceTemplates, [{ server: 'a', uriTemplate: 'a_agent_file://{x}', name: 't' }]);
  const prompts = (await json(await rest.prompts(get('/api/v1/prompts')))).body;
  assert.equal(prompts.prompts, [{ server: 'a', name: 'a_agent_greet', upstreamName: 'greet' }]);
});

test('rest :: a view that throws answers 500 internal, sanitized', async () => {
  const { rest, add } = setup();
  const a = add('a');
  Object.defineProperty(a, 'inventory', { get: () => { throw new Error('broken at /home/someone/secret.txt'); } });
  const response = await rest.prompts(get('/api/v1/prompts'));
  assert.is(response.status, 500);
  const body = (await response.json()) as { error: string; message: string };
  assert.is(body.error, 'internal');
  assert.not.match(body.message, /\/home\/someone/);
});

test.run();
