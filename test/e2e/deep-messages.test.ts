// Deeply nested params and answers: a structured clone between threads recurses, and a worker
// that cannot read a message drops it unseen. Found by an outside check: a call whose arguments
// nested 8,000-15,000 levels deep was never answered. Now anything past 1,000 levels fails at
// once, naming the backend; shallower ones pass.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { backendFixture, FIXTURE_SERVER, type Service, startService } from '../helpers/service.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'deep', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
// A body written as text: a client's JSON.stringify would itself run out of stack.
const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

let svc: Service;
const D = suite('e2e deep messages');

D.before(async () => {
  svc = await startService({
    config: {
      mcpServers: {
        good: { command: process.execPath, args: [FIXTURE_SERVER] },
        deep: { command: process.execPath, args: ['--stack-size=4000', backendFixture('answers-too-deep.mjs')] },
        'deep-list': { command: process.execPath, args: [backendFixture('lists-a-deep-tool.mjs')] },
        'deep-progress': { command: process.execPath, args: [backendFixture('lists-a-deep-tool.mjs')], env: { SHALLOW_LIST: '1' } },
      },
    },
    args: ['--health-info-level', 'full'],
  });
  await svc.waitFor(async () => ((await svc.get('/health')).body.servers?.healthy === 3 && (await detail('deep-list'))?.lastError) || undefined, 'three backends healthy, deep-list failed', 30_000);
});

D.after(async () => {
  await svc.stop();
});

async function detail(name: string): Promise<{ status: string; lastError: string | null } | undefined> {
  return (await svc.get('/health')).body.servers?.details?.find((d: { name: string }) => d.name === name);
}

async function call(name: string, argumentsText: string, meta: Record<string, unknown> = META) {
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsText},"_meta":${JSON.stringify(meta)}}}`;
  const response = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-name': name }, body, signal: AbortSignal.timeout(15_000) });
  return (await response.json()) as { result?: { structuredContent?: unknown; content?: unknown }; error?: { code: number; message: string; data?: unknown } };
}

D('deep messages :: arguments nested 9,000 levels fail at once with too_deep, naming the backend; 900 levels pass', async () => {
  const refused = await call('good_agent_echo', `{"text":"hi","deep":${nestedText(9_000)}}`);
  assert.equal(refused.error, { code: -32602, message: "The request's params nest more than 1000 levels deep: not sent to backend 'good'", data: { code: 'too_deep', backend: 'good' } });
  const passed = await call('good_agent_echo', `{"text":"hi","deep":${nestedText(900)}}`);
  assert.equal(passed.result?.content, [{ type: 'text', text: 'hi' }]);
});

D('deep messages :: an answer nested 9,000 levels fails at once with too_deep; 900 levels arrive whole', async () => {
  const refused = await call('deep_agent_deep', '{"levels":9000}');
  assert.equal(refused.error, { code: -32602, message: "backend 'deep' sent an answer nested more than 1000 levels deep: not read", data: { code: 'too_deep', backend: 'deep' } });
  const passed = await call('deep_agent_deep', '{"levels":900}');
  let depth = 0;
  for (let at = (passed.result?.structuredContent as { value: unknown }).value; typeof at === 'object' && at !== null; at = (at as { a: unknown }).a) depth++;
  assert.is(depth, 900);
});

// Found by an outside check: the SDK client's recursive validation of a tool list ran the
// worker's stack out, and the backend failed with "Maximum call stack size exceeded".
D('deep messages :: a tool list nested 7,000 levels fails its backend with words that say so; the others serve', async () => {
  const failed = (await detail('deep-list'))!;
  assert.is(failed.status, 'error');
  assert.match(failed.lastError!, /backend 'deep-list' sent an answer nested more than 1000 levels deep: not read/);
  assert.not.match(failed.lastError!, /call stack/);
  const line = await svc.waitForLog((l) => l.code === 'too_deep' && l.backend === 'deep-list');
  assert.is(line.msg, "backend 'deep-list' sent an answer nested more than 1000 levels deep: not read");
  assert.equal((await call('good_agent_echo', '{"text":"still"}')).result?.content, [{ type: 'text', text: 'still' }]);
});

D('deep messages :: a progress notification nested 7,000 levels is dropped and logged; its call is answered', async () => {
  const answered = await call('deep-progress_agent_notify_deep', '{}', { ...META, progressToken: 'p1' });
  assert.equal(answered.result?.content, [{ type: 'text', text: 'done' }]);
  const line = await svc.waitForLog((l) => l.code === 'too_deep' && l.backend === 'deep-progress');
  assert.is(line.msg, "backend 'deep-progress' sent a notification (notifications/progress) nested more than 1000 levels deep: not read");
  assert.is((await detail('deep-progress'))!.status, 'connected');
});

D.run();
