// End to end (issue 15): a backend asks the client something during a call (elicitation,
// sampling) and the question reaches the right client, in whichever era each side speaks: a
// 2026-07-28 backend's input_required passes through (a 2025 client is asked by the SDK's shim);
// a 2025 backend's request during the call goes to a 2025 session on the call's stream, or is
// parked and sent to a 2026-07-28 client as input_required, resumed by the retry. What the client
// cannot answer, what cannot be tied to one client, forged or stale requestState: refused clearly.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { EVERYTHING_SERVER, ROOT, type Service, startService } from '../helpers/service.ts';

const ASKS = path.join(ROOT, 'test/fixtures/backends/asks-the-client.mjs');
const node = process.execPath;
const INPUT_TIMEOUT_MS = 2_500;

type Asked = { method: string; id: unknown; params: Record<string, any> };
type Era = 'legacy' | 'modern';
type ClientOptions = { era: Era; elicitation?: Record<string, unknown> | null; sampling?: boolean; answer?: (asked: Asked) => Record<string, unknown> };

let svc: Service;
const clients: Client[] = [];

// A real v2 SDK client in the given era that answers what it is asked and records it.
async function connect({ era, elicitation = { form: {}, url: {} }, sampling = true, answer }: ClientOptions) {
  const asked: Asked[] = [];
  const capabilities: Record<string, unknown> = {};
  if (elicitation) capabilities.elicitation = elicitation;
  if (sampling) capabilities.sampling = {};
  const client = new Client({ name: `e2e-${era}`, version: '1.0.0' }, { capabilities, versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } });
  const reply = (asked: Asked) => answer?.(asked) ?? defaultAnswer(asked);
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const entry = { method: 'elicitation/create', id: ctx.mcpReq.id, params: request.params as Record<string, any> };
      asked.push(entry);
      return reply(entry) as never;
    });
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const entry = { method: 'sampling/createMessage', id: ctx.mcpReq.id, params: request.params as Record<string, any> };
      asked.push(entry);
      return reply(entry) as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  clients.push(client);
  return { client, asked };
}

function defaultAnswer(asked: Asked): Record<string, unknown> {
  if (asked.method === 'sampling/createMessage') return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'forty-two' } };
  if (asked.params.mode === 'url') return { action: 'accept' };
  // server-everything's form asks for a dozen typed fields: declined (the gateway checks accepted content against the schema).
  if (asked.params.requestedSchema?.properties?.email) return { action: 'decline' };
  const properties = Object.keys(asked.params.requestedSchema?.properties ?? {});
  const content: Record<string, unknown> = {};
  for (const key of properties) content[key] = key === 'ok' ? true : key === 'name' ? 'Ada' : key === 'colour' ? 'green' : 'x';
  return { action: 'accept', content };
}

const textOf = (result: any): string => result.content?.map((c: any) => c.text ?? '').join('') ?? '';

const E = suite('e2e client input');

E.before(async () => {
  svc = await startService({
    config: {
      mcpServers: {
        asks: { command: node, args: [ASKS], protocolVersion: '2026-07-28' },
        'asks-legacy': { command: node, args: [ASKS], protocolVersion: 'legacy' },
        everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'] },
      },
    },
    args: ['--health-rate-limit', '0', '--input-timeout', String(INPUT_TIMEOUT_MS)],
  });
  await svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    return body.status === 'healthy' && body;
  }, 'every backend connected', 30_000);
});

E.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await svc.stop();
});

E('e2e client input :: a 2026-07-28 client answers a 2026-07-28 backend\'s question: its input_required passes through, the retry reaches the backend', async () => {
  const { client, asked } = await connect({ era: 'modern' });
  const result = await client.callTool({ name: 'asks_agent_confirm', arguments: { what: 'the deploy' } });
  assert.is(textOf(result), 'confirm: accept {"ok":true}');
  assert.is(asked.length, 1);
  assert.is(asked[0]!.params.message, 'Proceed with the deploy?');
  assert.is(asked[0]!.id, 'confirm', 'asked through input_required, under the backend\'s own key');

  const two = await client.callTool({ name: 'asks_agent_two_questions', arguments: {} });
  assert.is(textOf(two), 'Ada likes green', 'two rounds: the backend\'s own requestState came back to it inside ours');

  const sampled = await client.callTool({ name: 'asks_agent_sample', arguments: { prompt: 'meaning of life?' } });
  assert.is(textOf(sampled), 'model said: forty-two');
  assert.is(asked.at(-1)!.params.messages[0].content.text, 'meaning of life?');
});

E('e2e client input :: a 2026-07-28 client answers a 2025 backend\'s request during the call: parked, sent as input_required, resumed by the retry', async () => {
  const { client, asked } = await connect({ era: 'modern' });
  const result = await client.callTool({ name: 'asks-legacy_agent_confirm', arguments: { what: 'the migration' } });
  assert.is(textOf(result), 'confirm: accept {"ok":true}');
  assert.is(asked.length, 1);
  assert.is(asked[0]!.id, 'input', 'the gateway\'s key: the backend sent a request, the client got input_required');
  assert.is(asked[0]!.params.message, 'Proceed with the migration?');

  const pushed = await client.callTool({ name: 'asks-legacy_agent_push_confirm', arguments: {} });
  assert.is(textOf(pushed), 'push: accept {"ok":true}');
  const two = await client.callTool({ name: 'asks-legacy_agent_two_questions', arguments: {} });
  assert.is(textOf(two), 'Ada likes green');
  const url = await client.callTool({ name: 'asks-legacy_agent_open_url', arguments: {} });
  assert.is(textOf(url), 'page: accept');
  assert.is(asked.at(-1)!.params.url, 'https://example.test/sign-in');

  // A v1 reference server (server-everything) asks the 2025 way too.
  const everything = await client.callTool({ name: 'everything_agent_trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 10 } });
  assert.match(textOf(everything), /forty-two/);
});

E('e2e client input :: a 2025 client is asked on its call\'s stream, for a 2025 backend and (through the SDK\'s shim) a 2026-07-28 one', async () => {
  const { client, asked } = await connect({ era: 'legacy' });
  assert.is(textOf(await client.callTool({ name: 'asks-legacy_agent_push_confirm', arguments: {} })), 'push: accept {"ok":true}');
  assert.is(textOf(await client.callTool({ name: 'asks-legacy_agent_confirm', arguments: { what: 'it' } })), 'confirm: accept {"ok":true}');
  assert.is(textOf(await client.callTool({ name: 'asks_agent_confirm', arguments: { what: 'that' } })), 'confirm: accept {"ok":true}');
  assert.is(textOf(await client.callTool({ name: 'asks_agent_two_questions', arguments: {} })), 'Ada likes green');
  assert.is(textOf(await client.callTool({ name: 'asks-legacy_agent_sample', arguments: { prompt: 'p' } })), 'model said: forty-two');
  const everything = await client.callTool({ name: 'everything_agent_trigger-elicitation-request', arguments: {} });
  assert.not.ok(everything.isError, textOf(everything));
  assert.ok(asked.length >= 7, `every question reached the client (${asked.length})`);
  assert.ok(asked.every((a) => typeof a.id === 'number'), 'as real requests during the call');
  assert.ok(asked.some((a) => a.params.message === 'Proceed with that?'));
});

E('e2e client input :: a client\'s answer nested more than 1,000 levels deep is refused at once (too_deep), not lost between threads with the call left waiting', async () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 3_000; i++) deep = { a: deep };
  const { client } = await connect({ era: 'legacy', answer: () => ({ action: 'accept', content: { ok: true }, _meta: { deep } }) });
  const pushed = await client.callTool({ name: 'asks-legacy_agent_push_confirm', arguments: {} });
  assert.ok(pushed.isError, textOf(pushed));
  assert.match(textOf(pushed), /nests more than 1000 levels deep/, 'refused, not timed out');
});

E('e2e client input :: a client that cannot answer: the backend hears that client\'s error, nothing is left waiting', async () => {
  const { client } = await connect({ era: 'legacy', elicitation: null, sampling: false });
  const pushed = await client.callTool({ name: 'asks-legacy_agent_push_confirm', arguments: {} });
  assert.ok(pushed.isError);
  assert.match(textOf(pushed), /Method not found/);

  const formOnly = await connect({ era: 'modern', elicitation: { form: {} } });
  const url = await formOnly.client.callTool({ name: 'asks-legacy_agent_open_url', arguments: {} });
  assert.ok(url.isError, 'the backend\'s shim failed the URL question');
  assert.is(formOnly.asked.length, 0, 'the client was not asked what it cannot answer');

  // A 2026-07-28 backend learns per request what the client declared, and says what it misses.
  const modernBare = await connect({ era: 'modern', elicitation: null, sampling: false });
  const error = await modernBare.client.callTool({ name: 'asks_agent_confirm', arguments: { what: 'x' } }).then(
    () => null,
    (e: { code?: number }) => e,
  );
  assert.is(error?.code, -32021, 'MissingRequiredClientCapability');
});

E('e2e client input :: a request that could be for either of two clients is refused, and the service says why', async () => {
  const a = await connect({ era: 'legacy' });
  const b = await connect({ era: 'legacy' });
  const busy = b.client.callTool({ name: 'asks-legacy_agent_sleep', arguments: { ms: 1_500 } });
  await new Promise((r) => setTimeout(r, 200));
  const refused = await a.client.callTool({ name: 'asks-legacy_agent_push_confirm', arguments: { delayMs: 200 } });
  assert.ok(refused.isError);
  assert.match(textOf(refused), /cannot tell which client/);
  assert.is(a.asked.length + b.asked.length, 0, 'neither client was asked');
  assert.is(textOf(await busy), 'slept 1500');
  await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('elicitation/create request from the backend was refused'));
});

E('e2e client input :: requestState is the service\'s: forged, altered, for another backend, expired or from before a restart, it is refused', async () => {
  const { client } = await connect({ era: 'modern' });
  const first = (await client.callTool({ name: 'asks-legacy_agent_confirm', arguments: { what: 'x' } }, { allowInputRequired: true })) as any;
  assert.is(first.resultType, 'input_required');
  assert.ok(first.inputRequests.input, 'the parked question under the gateway\'s key');
  const state: string = first.requestState;
  const retry = (name: string, requestState: string) =>
    client.callTool({ name, arguments: { what: 'x' }, inputResponses: { input: { action: 'accept', content: { ok: true } } }, requestState } as never).then(
      (r) => ({ ok: true as const, r }),
      (e: { code?: number; message?: string }) => ({ ok: false as const, e }),
    );

  const forged = await retry('asks-legacy_agent_confirm', 'eyJrIjoicGFyayJ9.AAAA');
  assert.is(forged.ok ? null : forged.e.code, -32602);
  const flipped = state.slice(0, 5) + (state[5] === 'A' ? 'B' : 'A') + state.slice(6);
  const altered = await retry('asks-legacy_agent_confirm', flipped);
  assert.is(altered.ok ? null : altered.e.code, -32602);
  const elsewhere = await retry('asks_agent_confirm', state);
  assert.match(elsewhere.ok ? '' : String(elsewhere.e.message), /belongs to a call to backend 'asks-legacy'/);

  // The genuine state still works once.
  const good = await retry('asks-legacy_agent_confirm', state);
  assert.is(good.ok && textOf(good.r), 'confirm: accept {"ok":true}');
  const again = await retry('asks-legacy_agent_confirm', state);
  assert.match(again.ok ? textOf(again.r) : String(again.e.message), /unknown \(already answered/);

  // Not answered within --input-timeout: the backend is told, a late retry is told why.
  const late = (await client.callTool({ name: 'asks-legacy_agent_confirm', arguments: { what: 'x' } }, { allowInputRequired: true })) as any;
  await new Promise((r) => setTimeout(r, INPUT_TIMEOUT_MS + 500));
  const expired = await retry('asks-legacy_agent_confirm', late.requestState);
  assert.match(expired.ok ? textOf(expired.r) : String(expired.e.message), /is void: the client did not answer within 2500 ms \(--input-timeout\)/);

  // A backend restarted since it asked: its question is void, the retry says so.
  const before = (await client.callTool({ name: 'asks-legacy_agent_confirm', arguments: { what: 'x' } }, { allowInputRequired: true })) as any;
  await callControl(socketPath(svc.dir), 'restart', { server: 'asks-legacy' }, { timeoutMs: 30_000 });
  await svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    return body.status === 'healthy' && body;
  }, 'asks-legacy back', 20_000);
  const stale = await retry('asks-legacy_agent_confirm', before.requestState);
  assert.match(stale.ok ? textOf(stale.r) : String(stale.e.message), /restarted or stopped since it asked this question; call it again/);
});

E.run();
