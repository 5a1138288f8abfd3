// Router: a real Catalog, StateCodec and ResourceSubscriptions; hand-written BackendLinks (the worker across a MessagePort) record what they are asked and answer scripted outcomes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Catalog } from '../../lib/hub/catalog.ts';
import type { BackendSource } from '../../lib/hub/backends.ts';
import { createStateCodec } from '../../lib/hub/request-state.ts';
import { ResourceSubscriptions } from '../../lib/hub/subscriptions.ts';
import { createTaskIdCodec } from '../../lib/hub/task-ids.ts';
import { TaskOwners } from '../../lib/hub/tasks.ts';
import type { BackendLink, CallExtra, InitialLoadGate, LinkOutcome } from '../../lib/hub/link-types.ts';
import { INPUT_KEY, type RouteExtra, Router } from '../../lib/hub/router.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';
import { parseTagFilter } from '../../lib/shared/tag-filter.ts';

type Json = Record<string, unknown>;
type Link = BackendLink;
type Gate = InitialLoadGate;
type Outcome = LinkOutcome;

const silent = pino({ level: 'silent' });
const key = randomBytes(32);

type Asked =
  | { op: 'request'; method: string; params: Json; extra: CallExtra }
  | { op: 'resume'; parkId: number; answer: unknown; extra: CallExtra }
  | { op: 'subscribe' | 'unsubscribe'; uri: string };

/** A backend's worker: answers each request or resume with the next scripted outcome (an empty result when none is left). */
function fakeLink(worker = 1, connection = 1) {
  const asked: Asked[] = [];
  const script: (Outcome | Promise<Outcome>)[] = [];
  const next = async () => (script.length ? script.shift()! : { ok: true as const, result: {} });
  const link: Link = {
    worker,
    connection,
    request: (method, params, extra) => (asked.push({ op: 'request', method, params, extra }), next()),
    resume: (parkId, answer, extra) => (asked.push({ op: 'resume', parkId, answer, extra }), next()),
    subscribe: (uri) => (asked.push({ op: 'subscribe', uri }), next()),
    unsubscribe: (uri) => void asked.push({ op: 'unsubscribe', uri }),
    parkedFor: async () => ({ ok: true, result: {} }),
  };
  return { link, asked, script };
}
type FakeLink = ReturnType<typeof fakeLink>;

type AddOptions = { tags?: string[]; tools?: string[]; prompts?: string[]; phase?: BackendState['phase']; link?: FakeLink | null };

function setup(initialLoad?: Gate) {
  const backends = new Map<string, BackendState>();
  const links = new Map<string, FakeLink>();
  const source: BackendSource = { get: (n) => backends.get(n), all: () => backends.values(), disabled: () => [] };
  const catalog = new Catalog(source, silent);
  const codec = createStateCodec(key, 'router-test', 60_000);
  const subscriptions = new ResourceSubscriptions();
  const unrouted: [string, Json][] = [];
  const router = new Router({
    catalog,
    links: (name) => links.get(name)?.link,
    logUnrouted: (backend, params) => void unrouted.push([backend, params]),
    ...(initialLoad ? { initialLoad } : {}),
    stateCodec: codec,
    inputTimeoutMs: 1234,
    subscriptions,
    taskIds: createTaskIdCodec(key, 'router-test'),
    taskOwners: new TaskOwners(),
  });
  /** A backend with its tools and prompts and a link (or none: `link: null`); returns the link. */
  const add = (name: string, options: AddOptions = {}) => {
    const b = newBackendState(name, options.tags ?? [], null);
    b.phase = options.phase ?? 'connected';
    b.inventory = {
      tools: (options.tools ?? ['echo']).map((t) => ({ name: t, inputSchema: { type: 'object' as const } })),
      prompts: (options.prompts ?? ['greet']).map((p) => ({ name: p })),
      resources: [{ uri: 'file:///srv/a.txt', name: 'a' }],
      resourceTemplates: [],
    };
    backends.set(name, b);
    const link = options.link === undefined ? fakeLink() : options.link;
    if (link) links.set(name, link);
    return link ?? fakeLink();
  };
  return { router, add, backends, links, codec, subscriptions, unrouted };
}

/** The error a routed request failed with (it must fail). */
async function failure(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => assert.unreachable('the request should have failed'),
    (e: unknown) => e,
  );
  assert.instance(error, ProtocolError);
  return error as ProtocolError;
}

const flush = async () => {
  for (let i = 0; i < 50; i++) await Promise.resolve();
};

/** Where a promise stands once pending microtasks ran. */
async function standing(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await flush();
  return state;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const requests = (l: FakeLink) => l.asked.filter((a) => a.op === 'request').map((a) => [a.method, a.params]);

// --- name mapping -------------------------------------------------------------------------------

test("router :: a qualified tool name reaches its own backend's link under the backend's tool name", async () => {
  const { router, add } = setup();
  const a = add('a', { tools: ['echo'] });
  const b = add('b', { tools: ['echo', 'x_agent_y'] });
  a.script.push({ ok: true, result: { content: [{ type: 'text', text: 'hi' }] } });
  const result = await router.callTool('a_agent_echo', { text: 'hi' }, null, {});
  assert.equal(result, { content: [{ type: 'text', text: 'hi' }] });
  await router.callTool('b_agent_echo', undefined, null, {});
  await router.callTool('b_agent_x_agent_y', {}, null, {});
  assert.equal(requests(a), [['tools/call', { name: 'echo', arguments: { text: 'hi' } }]]);
  assert.equal(
    requests(b),
    [
      ['tools/call', { name: 'echo' }],
      ['tools/call', { name: 'x_agent_y', arguments: {} }],
    ],
    'no arguments key without arguments; the name splits on the first _agent_',
  );
});

test("router :: a qualified prompt reaches its backend as prompts/get under the backend's name, with its arguments", async () => {
  const { router, add } = setup();
  const a = add('a', { prompts: ['greet'] });
  await router.getPrompt('a_agent_greet', { who: 'you' }, null, {});
  await router.getPrompt('a_agent_greet', undefined, null, {});
  assert.equal(requests(a), [
    ['prompts/get', { name: 'greet', arguments: { who: 'you' } }],
    ['prompts/get', { name: 'greet' }],
  ]);
});

test("router :: a resource read goes out under the backend's URI, also one its lists do not name (templates)", async () => {
  const { router, add } = setup();
  const a = add('a');
  await router.readResource('a_agent_file:///srv/a.txt', null, {});
  await router.readResource('a_agent_db://table/7', null, {});
  assert.equal(requests(a), [
    ['resources/read', { uri: 'file:///srv/a.txt' }],
    ['resources/read', { uri: 'db://table/7' }],
  ]);
});

const completions: { name: string; ref: { type: string; name?: string; uri?: string }; backendRef: Json }[] = [
  { name: 'a prompt ref gets the backend prompt name', ref: { type: 'ref/prompt', name: 'a_agent_greet' }, backendRef: { type: 'ref/prompt', name: 'greet' } },
  { name: 'a resource ref gets the backend URI (template)', ref: { type: 'ref/resource', uri: 'a_agent_file:///{path}' }, backendRef: { type: 'ref/resource', uri: 'file:///{path}' } },
];
for (const { name, ref, backendRef } of completions) {
  test(`router :: complete: ${name}; the other params go as they are`, async () => {
    const { router, add } = setup();
    const a = add('a');
    a.script.push({ ok: true, result: { completion: { values: ['x'] } } });
    const result = await router.complete(ref, { argument: { name: 'who', value: 'y' } }, null, {});
    assert.equal(result, { completion: { values: ['x'] } });
    assert.equal(requests(a), [['completion/complete', { argument: { name: 'who', value: 'y' }, ref: backendRef }]]);
  });
}

test('router :: the link gets the call extra without the hub-side facts (log sink, retry, task facts)', async () => {
  const { router, add } = setup();
  const a = add('a');
  const signal = new AbortController().signal;
  const session = {};
  const extra: RouteExtra = {
    signal,
    session,
    onProgress: () => undefined,
    onInputRequest: async () => ({ park: true }),
    clientCapabilities: { elicitation: {} },
    relatedTask: 't1',
    logSink: { session, deliver: () => undefined },
    modern: true,
    taskOwner: { taskStatus: () => undefined },
    taskRequest: { ttl: 1000 },
  };
  await router.callTool('a_agent_echo', undefined, null, extra);
  const [asked] = a.asked;
  assert.ok(asked?.op === 'request');
  assert.equal(Object.keys(asked.extra).sort(), ['clientCapabilities', 'onInputRequest', 'onProgress', 'relatedTask', 'session', 'signal']);
  assert.is(asked.extra.signal, signal);
  assert.is(asked.extra.session, session);
  assert.equal(asked.params, { name: 'echo' }, 'a 2026-07-28 call carries no 2025 task');
});

// --- errors -------------------------------------------------------------------------------------

const unknowns: { name: string; call: (r: Router) => Promise<unknown>; message: string; data: Json }[] = [
  { name: 'a tool of an unknown backend', call: (r) => r.callTool('zz_agent_echo', {}, null, {}), message: 'Unknown tool: zz_agent_echo', data: { tool: 'zz_agent_echo' } },
  { name: 'a tool its backend does not have', call: (r) => r.callTool('a_agent_nope', {}, null, {}), message: 'Unknown tool: a_agent_nope', data: { tool: 'a_agent_nope' } },
  { name: 'a tool name without the separator', call: (r) => r.callTool('echo', {}, null, {}), message: 'Unknown tool: echo', data: { tool: 'echo' } },
  { name: 'a name that starts with the separator', call: (r) => r.callTool('_agent_echo', {}, null, {}), message: 'Unknown tool: _agent_echo', data: { tool: '_agent_echo' } },
  { name: 'a prompt name called as a tool', call: (r) => r.callTool('a_agent_greet', {}, null, {}), message: 'Unknown tool: a_agent_greet', data: { tool: 'a_agent_greet' } },
  { name: 'a prompt its backend does not have', call: (r) => r.getPrompt('a_agent_echo', {}, null, {}), message: 'Unknown prompt: a_agent_echo', data: { prompt: 'a_agent_echo' } },
  { name: 'a resource of an unknown backend', call: (r) => r.readResource('zz_agent_file:///x', null, {}), message: 'Unknown resource: zz_agent_file:///x', data: { uri: 'zz_agent_file:///x' } },
  { name: 'a resource URI without the separator', call: (r) => r.readResource('file:///x', null, {}), message: 'Unknown resource: file:///x', data: { uri: 'file:///x' } },
  { name: 'a completion ref to an unknown prompt', call: (r) => r.complete({ type: 'ref/prompt', name: 'a_agent_nope' }, {}, null, {}), message: 'Unknown prompt: a_agent_nope', data: { prompt: 'a_agent_nope' } },
  { name: 'a completion ref without a name', call: (r) => r.complete({ type: 'ref/prompt' }, {}, null, {}), message: 'Unknown prompt: ', data: { prompt: '' } },
];
for (const { name, call, message, data } of unknowns) {
  test(`router :: unknown: ${name} is InvalidParams naming it; no backend is asked`, async () => {
    const { router, add } = setup();
    const a = add('a', { tools: ['echo'], prompts: ['greet'] });
    const error = await failure(call(router));
    assert.is(error.code, ProtocolErrorCode.InvalidParams);
    assert.is(error.message, message);
    // The catalogue's code names the failure for clients that tell them apart.
    const code = /^Unknown (\w+)/.exec(message)![1];
    assert.equal(error.data, { code: `unknown_${code}`, ...data });
    assert.equal(a.asked, []);
  });
}

for (const entry of ['rm', 'a_agent_rm']) {
  test(`router :: a tool disabled as '${entry}' is refused with the setting and the command that enables it`, async () => {
    const { router, add, backends } = setup();
    const a = add('a', { tools: ['rm', 'echo'] });
    backends.get('a')!.toolPolicy = { disabledTools: [entry], toolDescriptionOverrides: {} };
    const error = await failure(router.callTool('a_agent_rm', {}, null, {}));
    assert.is(error.code, ProtocolErrorCode.InvalidParams);
    assert.is(error.message, 'Tool a_agent_rm is disabled by mcpServers.a.disabledTools; enable it with `agent mcp tools enable a rm`');
    assert.equal(error.data, { code: 'tool_disabled', tool: 'a_agent_rm', disabled: true });
    await router.callTool('a_agent_echo', {}, null, {});
    assert.equal(requests(a), [['tools/call', { name: 'echo', arguments: {} }]], 'only the enabled tool reached the backend');
  });
}

const down: { phase: BackendState['phase']; status: string }[] = [
  { phase: 'failed', status: 'error' },
  { phase: 'exited', status: 'error' },
  { phase: 'connecting', status: 'disconnected' },
  { phase: 'stopped', status: 'disconnected' },
  { phase: 'awaiting_oauth', status: 'awaiting_oauth' },
];
for (const { phase, status } of down) {
  test(`router :: a backend that is ${phase} fails every kind of request with InternalError naming it and its status (${status})`, async () => {
    const { router, add } = setup();
    const a = add('a', { phase });
    const calls = [
      () => router.callTool('a_agent_echo', {}, null, {}),
      () => router.getPrompt('a_agent_greet', {}, null, {}),
      () => router.readResource('a_agent_file:///srv/a.txt', null, {}),
      () => router.complete({ type: 'ref/prompt', name: 'a_agent_greet' }, {}, null, {}),
    ];
    for (const call of calls) {
      const error = await failure(call());
      assert.is(error.code, ProtocolErrorCode.InternalError);
      assert.is(error.message, `Backend 'a' is not connected (status: ${status})`);
      assert.equal(error.data, { code: 'backend_unavailable', backend: 'a', status });
    }
    assert.equal(a.asked, []);
  });
}

test('router :: a connected backend whose link the hub does not have yet fails as not connected, naming it', async () => {
  const { router, add } = setup();
  add('a', { link: null });
  const error = await failure(router.callTool('a_agent_echo', {}, null, {}));
  assert.is(error.code, ProtocolErrorCode.InternalError);
  assert.is(error.message, "Backend 'a' is not connected to this MCP worker yet (its channel is being set up); retry in a moment");
  assert.is((error.data as Json).backend, 'a');
});

test("router :: a backend outside the session's tag filter is unknown to it, connected or not; inside, it routes", async () => {
  const { router, add } = setup();
  const web = add('web', { tags: ['web'] });
  const db = add('db', { tags: ['db'] });
  add('dbdown', { tags: ['db'], phase: 'failed' });
  const onlyWeb = parseTagFilter('web');
  for (const qualified of ['db_agent_echo', 'dbdown_agent_echo']) {
    const error = await failure(router.callTool(qualified, {}, onlyWeb, {}));
    assert.is(error.code, ProtocolErrorCode.InvalidParams);
    assert.is(error.message, `Unknown tool: ${qualified}`, 'a hidden backend is not even said to be down');
  }
  assert.is((await failure(router.getPrompt('db_agent_greet', {}, onlyWeb, {}))).message, 'Unknown prompt: db_agent_greet');
  assert.is((await failure(router.readResource('db_agent_file:///srv/a.txt', onlyWeb, {}))).message, 'Unknown resource: db_agent_file:///srv/a.txt');
  await router.callTool('web_agent_echo', {}, onlyWeb, {});
  await router.callTool('db_agent_echo', {}, parseTagFilter('db or web'), {});
  assert.equal(requests(web).length, 1);
  assert.equal(requests(db).length, 1);
});

const failures: { name: string; error: { kind: 'mcp' | 'timeout' | 'disconnected' | 'cancelled' | 'internal'; code: number; message: string }; hidden: string[] }[] = [
  {
    name: 'a backend error with a token and a path',
    error: { kind: 'mcp', code: -32000, message: 'open /home/alice/.config/app/secret.json failed with token ghp_abcdefghijklmnopqrstuvwxyz0123' },
    hidden: ['/home/alice', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
  },
  {
    name: 'a worker error with a credential and a URL',
    error: { kind: 'internal', code: ProtocolErrorCode.InternalError, message: "backend 'a' failed the request: api_key=sk-live-1234567890abcdefgh at https://user:pw@db.internal:5432/x" },
    hidden: ['sk-live-1234567890abcdefgh', 'user:pw', 'db.internal'],
  },
  {
    name: 'a timeout naming a Windows path',
    error: { kind: 'timeout', code: ProtocolErrorCode.InternalError, message: 'timed out reading C:\\Users\\bob\\secrets.txt' },
    hidden: ['C:\\Users\\bob'],
  },
];
for (const { name, error, hidden } of failures) {
  test(`router :: ${name} reaches the client sanitized, with its code and data {backend, reason}`, async () => {
    const { router, add } = setup();
    const a = add('a');
    a.script.push({ ok: false, error });
    const thrown = await failure(router.callTool('a_agent_echo', {}, null, {}));
    assert.is(thrown.code, error.code);
    for (const secret of hidden) assert.not.ok(thrown.message.includes(secret), `${secret} leaked: ${thrown.message}`);
    assert.match(thrown.message, /\[(REDACTED|PATH|URL)\]/);
    assert.equal(thrown.data, { code: { mcp: 'backend_error', timeout: 'backend_timeout', internal: 'internal', disconnected: 'backend_disconnected', cancelled: 'call_cancelled' }[error.kind], backend: 'a', reason: error.kind });
  });
}

test("router :: a backend error's own data (a URL elicitation the client must open) passes, with the catalogue code beside it; its message is still sanitized", async () => {
  const { router, add } = setup();
  const a = add('a');
  const data = { elicitations: [{ mode: 'url', elicitationId: 'e1', url: 'https://auth.example/x', message: 'Sign in' }] };
  a.script.push({ ok: false, error: { kind: 'mcp', code: -32042, message: 'sign in at /home/alice/x first', data } });
  const thrown = await failure(router.getPrompt('a_agent_greet', {}, null, {}));
  assert.is(thrown.code, -32042);
  assert.equal(thrown.data, { ...data, code: 'backend_error' });
  // A backend's own `code` in its data is kept.
  a.script.push({ ok: false, error: { kind: 'mcp', code: -32000, message: 'no', data: { code: 'E_QUOTA', left: 0 } } });
  assert.equal((await failure(router.getPrompt('a_agent_greet', {}, null, {}))).data, { code: 'E_QUOTA', left: 0 });
  // null is no data; other data that is no object goes as it came (a code cannot be added to it).
  a.script.push({ ok: false, error: { kind: 'mcp', code: -32000, message: 'no', data: null } });
  assert.equal((await failure(router.getPrompt('a_agent_greet', {}, null, {}))).data, { code: 'backend_error', backend: 'a', reason: 'mcp' });
  a.script.push({ ok: false, error: { kind: 'mcp', code: -32000, message: 'no', data: 'a string' } });
  assert.is((await failure(router.getPrompt('a_agent_greet', {}, null, {}))).data, 'a string');
  assert.is(thrown.message, 'sign in at [PATH] first');
});

// --- results ------------------------------------------------------------------------------------

const envelopes: { name: string; meta: Json | undefined; kept: Json | undefined }[] = [
  {
    name: 'reserved keys go, others stay',
    meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x' }, 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'com.example/trace': 't1', progressToken: 3 },
    kept: { 'com.example/trace': 't1', progressToken: 3 },
  },
  { name: 'only reserved keys: no _meta at all', meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x' } }, kept: undefined },
  { name: 'a key that merely contains the prefix stays', meta: { 'x.io.modelcontextprotocol/y': 1, 'io.modelcontextprotocol.z': 2 }, kept: { 'x.io.modelcontextprotocol/y': 1, 'io.modelcontextprotocol.z': 2 } },
  { name: 'no _meta: none added', meta: undefined, kept: undefined },
];
for (const { name, meta, kept } of envelopes) {
  test(`router :: result _meta: ${name} (tools, prompts, reads, completions)`, async () => {
    const { router, add } = setup();
    const a = add('a');
    const answers = ['content', 'messages', 'contents', 'completion'].map((field) => ({ [field]: [], ...(meta ? { _meta: meta } : {}) }));
    for (const result of answers) a.script.push({ ok: true, result });
    const results = [
      await router.callTool('a_agent_echo', {}, null, {}),
      await router.getPrompt('a_agent_greet', {}, null, {}),
      await router.readResource('a_agent_file:///srv/a.txt', null, {}),
      await router.complete({ type: 'ref/prompt', name: 'a_agent_greet' }, {}, null, {}),
    ];
    for (const result of results) {
      assert.equal(result._meta, kept);
      assert.is('_meta' in result, kept !== undefined);
    }
  });
}

test("router :: URIs in tool, prompt and read results come back in client-facing form, under the answering backend's name", async () => {
  const { router, add } = setup();
  const a = add('files');
  a.script.push({ ok: true, result: { content: [{ type: 'resource_link', uri: 'file:///x', name: 'x' }, { type: 'resource', resource: { uri: 'file:///y', text: 'y' } }] } });
  a.script.push({ ok: true, result: { messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'file:///z', text: 'z' } } }] } });
  a.script.push({ ok: true, result: { contents: [{ uri: 'file:///srv/a.txt', text: 'a' }] } });
  const tool = await router.callTool('files_agent_echo', {}, null, {});
  const prompt = await router.getPrompt('files_agent_greet', {}, null, {});
  const read = await router.readResource('files_agent_file:///srv/a.txt', null, {});
  assert.equal(tool.content, [
    { type: 'resource_link', uri: 'files_agent_file:///x', name: 'x' },
    { type: 'resource', resource: { uri: 'files_agent_file:///y', text: 'y' } },
  ]);
  assert.equal(prompt.messages, [{ role: 'user', content: { type: 'resource', resource: { uri: 'files_agent_file:///z', text: 'z' } } }]);
  assert.equal(read.contents, [{ uri: 'files_agent_file:///srv/a.txt', text: 'a' }]);
});

// --- input_required -----------------------------------------------------------------------------

const question = { method: 'elicitation/create' as const, params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } };

test('router :: a question parked in the worker becomes input_required whose signed state names backend, worker and park id', async () => {
  const { router, add, codec } = setup();
  const a = add('a', { link: fakeLink(7) });
  a.script.push({ parked: { parkId: 42, ...question } });
  const result = await router.callTool('a_agent_echo', {}, null, {});
  assert.equal(Object.keys(result).sort(), ['inputRequests', 'requestState', 'resultType']);
  assert.is(result.resultType, 'input_required');
  assert.equal(result.inputRequests, { [INPUT_KEY]: question });
  assert.equal(codec.verify(result.requestState), { k: 'park', b: 'a', w: 7, p: 42 });
});

test("router :: a retry with the parked state resumes the worker's question with the client's answer, not a new call", async () => {
  const { router, add, codec } = setup();
  const a = add('a', { link: fakeLink(7) });
  a.script.push({ parked: { parkId: 42, ...question } });
  const first = await router.callTool('a_agent_echo', {}, null, {});
  const answer = { action: 'accept', content: { sure: true } };
  a.script.push({ ok: true, result: { content: [{ type: 'resource_link', uri: 'mem://r', name: 'r' }] } });
  const session = {};
  const result = await router.callTool('a_agent_echo', {}, null, { session, retry: { state: codec.verify(first.requestState), inputResponses: { [INPUT_KEY]: answer } } });
  assert.equal(result, { content: [{ type: 'resource_link', uri: 'a_agent_mem://r', name: 'r' }] }, 'the resumed answer is a result like any other');
  const last = a.asked.at(-1)!;
  assert.is(last.op, 'resume');
  assert.ok(last.op === 'resume');
  assert.is(last.parkId, 42);
  assert.equal(last.answer, { ok: true, result: answer });
  assert.is(last.extra.session, session);
  assert.not.ok('retry' in last.extra);
  assert.is(requests(a).length, 1, 'only the first call was a request');
});

test('router :: a resumed question that asks again gives a new state for the new question', async () => {
  const { router, add, codec } = setup();
  const a = add('a', { link: fakeLink(3) });
  a.script.push({ parked: { parkId: 1, ...question } });
  const first = await router.getPrompt('a_agent_greet', {}, null, {});
  a.script.push({ parked: { parkId: 2, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } });
  const second = await router.getPrompt('a_agent_greet', {}, null, { retry: { state: codec.verify(first.requestState), inputResponses: { [INPUT_KEY]: { action: 'decline' } } } });
  assert.equal(second.inputRequests, { [INPUT_KEY]: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } });
  assert.equal(codec.verify(second.requestState), { k: 'park', b: 'a', w: 3, p: 2 });
});

const refusedRetries: { name: string; state: { k: 'park'; b: string; w: number; p: number } | { k: 'pass'; b: string; s?: string }; inputResponses: Json; message: string }[] = [
  { name: "a state of another backend's call", state: { k: 'park', b: 'b', w: 7, p: 1 }, inputResponses: { [INPUT_KEY]: {} }, message: "This requestState belongs to a call to backend 'b', not 'a'" },
  { name: "another backend's own state", state: { k: 'pass', b: 'b', s: 'x' }, inputResponses: {}, message: "This requestState belongs to a call to backend 'b', not 'a'" },
  { name: 'a question of an older worker', state: { k: 'park', b: 'a', w: 6, p: 1 }, inputResponses: { [INPUT_KEY]: {} }, message: "Backend 'a' restarted since it asked this question; call it again" },
  { name: 'no answer', state: { k: 'park', b: 'a', w: 7, p: 1 }, inputResponses: {}, message: `The retry carries no answer for input request '${INPUT_KEY}'` },
  { name: 'an answer under another key', state: { k: 'park', b: 'a', w: 7, p: 1 }, inputResponses: { other: {} }, message: `The retry carries no answer for input request '${INPUT_KEY}'` },
  { name: 'an answer that is not an object', state: { k: 'park', b: 'a', w: 7, p: 1 }, inputResponses: { [INPUT_KEY]: 'yes' }, message: `The retry carries no answer for input request '${INPUT_KEY}'` },
  { name: 'a null answer', state: { k: 'park', b: 'a', w: 7, p: 1 }, inputResponses: { [INPUT_KEY]: null }, message: `The retry carries no answer for input request '${INPUT_KEY}'` },
];
for (const { name, state, inputResponses, message } of refusedRetries) {
  test(`router :: a retry with ${name} is refused (InvalidParams) and the worker is not asked`, async () => {
    const { router, add } = setup();
    const a = add('a', { link: fakeLink(7) });
    add('b');
    const error = await failure(router.callTool('a_agent_echo', {}, null, { retry: { state, inputResponses } }));
    assert.is(error.code, ProtocolErrorCode.InvalidParams);
    assert.is(error.message, message);
    assert.equal(a.asked, []);
  });
}

test("router :: a backend's own input_required passes with its state inside ours; the retry restores it with the answers", async () => {
  const { router, add, codec } = setup();
  const a = add('a');
  const inputRequests = { confirm: { method: 'elicitation/create', params: { message: 'Go?' } } };
  a.script.push({ ok: true, result: { resultType: 'input_required', inputRequests, requestState: 'backend-own-state', _meta: { 'io.modelcontextprotocol/serverInfo': {} } } });
  const first = await router.callTool('a_agent_echo', { n: 1 }, null, {});
  assert.equal(first.inputRequests, inputRequests);
  assert.is(first.resultType, 'input_required');
  assert.not.ok('_meta' in first);
  assert.is.not(first.requestState, 'backend-own-state');
  const state = codec.verify(first.requestState);
  assert.equal(state, { k: 'pass', b: 'a', s: 'backend-own-state' });
  a.script.push({ ok: true, result: { content: [] } });
  await router.callTool('a_agent_echo', { n: 1 }, null, { retry: { state, inputResponses: { confirm: { action: 'accept' } } } });
  assert.equal(requests(a)[1], ['tools/call', { name: 'echo', arguments: { n: 1 }, inputResponses: { confirm: { action: 'accept' } }, requestState: 'backend-own-state' }]);
});

test("router :: a backend's input_required without a state of its own: ours carries none, and the retry sends none", async () => {
  const { router, add, codec } = setup();
  const a = add('a');
  a.script.push({ ok: true, result: { resultType: 'input_required', inputRequests: { q: {} } } });
  const first = await router.readResource('a_agent_file:///srv/a.txt', null, {});
  const state = codec.verify(first.requestState);
  assert.equal(state, { k: 'pass', b: 'a' });
  await router.readResource('a_agent_file:///srv/a.txt', null, { retry: { state, inputResponses: { q: { ok: 1 } } } });
  assert.equal(requests(a)[1], ['resources/read', { uri: 'file:///srv/a.txt', inputResponses: { q: { ok: 1 } } }]);
});

// --- backend log routing ------------------------------------------------------------------------

/** A session that takes log messages: what it heard, and the sink its calls carry. */
function session() {
  const heard: Json[] = [];
  const self = {};
  return { heard, extra: (): RouteExtra => ({ session: self, logSink: { session: self, deliver: (params) => void heard.push(params) } }) };
}

test('router :: a backend log goes to the one session with calls in flight there, and to the service log once they end', async () => {
  const { router, add, unrouted } = setup();
  const a = add('a');
  const s = session();
  const answer = deferred<Outcome>();
  a.script.push(answer.promise);
  router.backendLog('a', { data: 'before' });
  const call = router.callTool('a_agent_echo', {}, null, s.extra());
  await flush();
  router.backendLog('a', { level: 'info', data: 'during' });
  router.backendLog('b', { data: 'another backend' });
  answer.resolve({ ok: true, result: {} });
  await call;
  router.backendLog('a', { data: 'after' });
  assert.equal(s.heard, [{ level: 'info', data: 'during' }]);
  assert.equal(unrouted, [
    ['a', { data: 'before' }],
    ['b', { data: 'another backend' }],
    ['a', { data: 'after' }],
  ]);
});

test('router :: with two sessions in flight on a backend its log goes to the service log; one session with two calls still hears it', async () => {
  const { router, add, unrouted } = setup();
  const a = add('a');
  const [s1, s2] = [session(), session()];
  const answers = [deferred<Outcome>(), deferred<Outcome>(), deferred<Outcome>()];
  for (const d of answers) a.script.push(d.promise);
  const first = router.callTool('a_agent_echo', {}, null, s1.extra());
  const second = router.getPrompt('a_agent_greet', {}, null, s1.extra());
  await flush();
  router.backendLog('a', { data: 'one session, two calls' });
  const third = router.readResource('a_agent_file:///srv/a.txt', null, s2.extra());
  await flush();
  router.backendLog('a', { data: 'two sessions' });
  answers[0]!.resolve({ ok: true, result: {} });
  answers[1]!.resolve({ ok: true, result: {} });
  await Promise.all([first, second]);
  router.backendLog('a', { data: 'only the second session now' });
  answers[2]!.resolve({ ok: true, result: {} });
  await third;
  assert.equal(s1.heard, [{ data: 'one session, two calls' }]);
  assert.equal(s2.heard, [{ data: 'only the second session now' }]);
  assert.equal(unrouted, [['a', { data: 'two sessions' }]]);
});

test("router :: a session's calls on another backend do not make it hear this one's log", async () => {
  const { router, add, unrouted } = setup();
  const b = add('b');
  add('a');
  const s = session();
  const answer = deferred<Outcome>();
  b.script.push(answer.promise);
  const call = router.callTool('b_agent_echo', {}, null, s.extra());
  await flush();
  router.backendLog('a', { data: 'a speaks' });
  answer.resolve({ ok: true, result: {} });
  await call;
  assert.equal(s.heard, []);
  assert.equal(unrouted, [['a', { data: 'a speaks' }]]);
});

const endings: { name: string; start: (r: Router, extra: RouteExtra, script: FakeLink['script']) => Promise<unknown> }[] = [
  { name: 'the backend answers with an error', start: (r, extra, script) => (script.push({ ok: false, error: { kind: 'mcp', code: -32000, message: 'no' } }), r.callTool('a_agent_echo', {}, null, extra)) },
  { name: 'the retry is refused', start: (r, extra) => r.callTool('a_agent_echo', {}, null, { ...extra, retry: { state: { k: 'park', b: 'a', w: 99, p: 1 }, inputResponses: {} } }) },
  { name: 'the question is parked (input_required)', start: (r, extra, script) => (script.push({ parked: { parkId: 1, ...question } }), r.getPrompt('a_agent_greet', {}, null, extra)) },
];
for (const { name, start } of endings) {
  test(`router :: a call's count goes back down when ${name}: the next log is the service log's`, async () => {
    const { router, add, unrouted } = setup();
    const a = add('a');
    const s1 = session();
    await start(router, s1.extra(), a.script).catch(() => undefined);
    router.backendLog('a', { data: 'nobody is calling' });
    assert.equal(s1.heard, []);
    assert.equal(unrouted, [['a', { data: 'nobody is calling' }]]);
    // And the ended call does not count against a new session either.
    const s2 = session();
    const answer = deferred<Outcome>();
    a.script.push(answer.promise);
    const call = router.callTool('a_agent_echo', {}, null, s2.extra());
    await flush();
    router.backendLog('a', { data: 'for s2' });
    answer.resolve({ ok: true, result: {} });
    await call;
    assert.equal(s2.heard, [{ data: 'for s2' }]);
  });
}

test("router :: a call whose client takes no log messages still counts: another session does not hear the backend's log meanwhile", async () => {
  // "a backend's log message goes to a session only when it is the only one (one user's
  // activity must not reach another)" (router.ts): the log may be about the other client's call.
  const { router, add, unrouted } = setup();
  const a = add('a');
  const s = session();
  const [mine, theirs] = [deferred<Outcome>(), deferred<Outcome>()];
  a.script.push(mine.promise, theirs.promise);
  const call = router.callTool('a_agent_echo', {}, null, s.extra());
  const other = router.callTool('a_agent_echo', {}, null, { session: {}, modern: true }); // a 2026-07-28 request: no log sink
  await flush();
  router.backendLog('a', { data: 'whose?' });
  mine.resolve({ ok: true, result: {} });
  theirs.resolve({ ok: true, result: {} });
  await Promise.all([call, other]);
  assert.equal(s.heard, [], 'the log went to a session although another client had a call in flight');
  assert.equal(unrouted, [['a', { data: 'whose?' }]]);
});

// --- the initial-load gate ----------------------------------------------------------------------

/** An initial load that ends when the test says so; counts who waited for it. */
function gate(settled = false) {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  const g = {
    waits: 0,
    settled: () => (g.waits++, promise),
    isSettled: () => settled,
    release: () => ((settled = true), release()),
  };
  return g;
}

test('router :: a call to a backend on its first connect waits for the initial load, then routes to it once connected', async () => {
  const g = gate();
  const { router, add, backends } = setup(g);
  const a = add('a', { phase: 'starting' });
  const call = router.callTool('a_agent_echo', {}, null, {});
  assert.is(await standing(call), 'pending');
  assert.is(g.waits, 1);
  assert.equal(a.asked, [], 'not asked before the load settles');
  backends.get('a')!.phase = 'connected';
  g.release();
  await call;
  assert.equal(requests(a), [['tools/call', { name: 'echo', arguments: {} }]]);
});

test('router :: a backend still not connected when the initial load settles fails as unavailable', async () => {
  const g = gate();
  const { router, add } = setup(g);
  const a = add('a', { phase: 'connecting' });
  const call = router.readResource('a_agent_file:///srv/a.txt', null, {});
  assert.is(await standing(call), 'pending');
  g.release();
  const error = await failure(call);
  assert.is(error.code, ProtocolErrorCode.InternalError);
  assert.is(error.message, "Backend 'a' is not connected (status: disconnected)");
  assert.equal(a.asked, []);
});

const noWait: { name: string; gate: ReturnType<typeof gate> | undefined; backend: Partial<BackendState> }[] = [
  { name: 'no initial load at all', gate: undefined, backend: { phase: 'starting' } },
  { name: 'the initial load has settled', gate: gate(true), backend: { phase: 'starting' } },
  { name: 'its first attempt already ended (failed)', gate: gate(), backend: { phase: 'failed', firstConnect: false } },
  { name: 'it is connecting again, not for the first time', gate: gate(), backend: { phase: 'connecting', firstConnect: false } },
  { name: 'it is supervised and restarting', gate: gate(), backend: { phase: 'starting', supervision: { state: 'restarting', attempt: 2, limit: null, nextRetryAt: null } } },
];
for (const { name, gate: g, backend } of noWait) {
  test(`router :: no wait when ${name}: a backend that is not connected fails at once`, async () => {
    const { router, add, backends } = setup(g);
    add('a');
    Object.assign(backends.get('a')!, backend);
    const call = router.callTool('a_agent_echo', {}, null, {});
    assert.is(await standing(call), 'rejected');
    assert.match((await failure(call)).message, /^Backend 'a' is not connected/);
    assert.is(g?.waits ?? 0, 0);
  });
}

test('router :: a name on a backend still loading waits (its lists are not known yet); a name of no configured backend does not', async () => {
  const g = gate();
  const { router, add } = setup(g);
  add('a', { phase: 'starting' });
  const call = router.callTool('a_agent_nope', {}, null, {});
  assert.is(await standing(call), 'pending');
  g.release();
  assert.match((await failure(call)).message, /^Backend 'a' is not connected/);
  const unknown = router.callTool('zz_agent_echo', {}, null, {});
  assert.is(await standing(unknown), 'rejected');
  assert.is(g.waits, 1, 'an unknown backend never waits');
});

// --- subscriptions and the rest -----------------------------------------------------------------

test("router :: subscribe asks the backend under its URI; updates reach the subscriber under the client's URI; unsubscribe lets go", async () => {
  const { router, add, subscriptions } = setup();
  const a = add('a');
  const heard: string[] = [];
  const subscriber = { resourceUpdated: (uri: string) => void heard.push(uri) };
  await router.subscribe(subscriber, 'a_agent_file:///srv/a.txt', null);
  assert.equal(a.asked, [{ op: 'subscribe', uri: 'file:///srv/a.txt' }]);
  router.resourceUpdated('a', 'file:///srv/a.txt');
  assert.equal(heard, ['a_agent_file:///srv/a.txt']);
  router.unsubscribe(subscriber, 'a_agent_file:///srv/a.txt');
  assert.equal(a.asked.at(-1), { op: 'unsubscribe', uri: 'file:///srv/a.txt' });
  assert.is(subscriptions.count('a', 'file:///srv/a.txt'), 0);
  await router.subscribe(subscriber, 'a_agent_file:///srv/a.txt', null);
  router.dropSubscriber(subscriber);
  assert.is(subscriptions.count('a', 'file:///srv/a.txt'), 0, 'a client that ends lets go of its subscriptions');
});

test('router :: subscribing to an unknown, hidden or unavailable resource fails; unsubscribing needs a qualified URI only', async () => {
  const { router, add } = setup();
  add('a', { tags: ['x'] });
  add('down', { phase: 'failed' });
  const subscriber = { resourceUpdated: () => undefined };
  assert.is((await failure(router.subscribe(subscriber, 'file:///x', null))).message, 'Unknown resource: file:///x');
  assert.is((await failure(router.subscribe(subscriber, 'a_agent_file:///x', parseTagFilter('y')))).message, 'Unknown resource: a_agent_file:///x');
  assert.is((await failure(router.subscribe(subscriber, 'down_agent_file:///x', null))).code, ProtocolErrorCode.InternalError);
  assert.throws(
    () => router.unsubscribe(subscriber, 'file:///x'),
    (e: unknown) => e instanceof ProtocolError && e.message === 'Unknown resource: file:///x',
  );
  router.unsubscribe(subscriber, 'down_agent_file:///x'); // a backend that is down: nothing to do, no error
});

test('router :: it hands out the options the client-facing server needs', () => {
  const { router, codec } = setup();
  assert.is(router.stateCodec, codec);
  assert.is(router.inputTimeoutMs, 1234);
});

test.run();
