// End to end (issue 15, tasks): a tool its backend runs only as a task (server-everything's
// simulate-research-query, a 2025-11-25 task) runs to completion for a 2025 client (tools/call
// with `task`, tasks/get, tasks/result, tasks/list, status notifications) and for a 2026-07-28
// client through the Tasks extension (`resultType: "task"`, then tasks/get, which carries the
// result). Task ids are the gateway's: signed, bound to the backend's connection, a session's
// own; a forged or foreign id is refused, and a task of a restarted backend fails naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { backendFixture, EVERYTHING_SERVER, poll, type Service, startService } from '../helpers/service.ts';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const RESEARCH = 'everything_agent_simulate-research-query';
const node = process.execPath;
const Loose = z.looseObject({});

let svc: Service;
const clients: Client[] = [];

// The first interpretation server-everything offers for an ambiguous research topic.
const firstInterpretation = (params: Record<string, any>) => ({ action: 'accept', content: { interpretation: params.requestedSchema.properties.interpretation.oneOf[0].const } });

async function legacyClient() {
  const statuses: Record<string, any>[] = [];
  const asked: Record<string, any>[] = [];
  const client = new Client({ name: 'e2e-tasks-legacy', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } });
  client.setNotificationHandler('notifications/tasks/status', { params: z.looseObject({ taskId: z.string() }) }, (params) => void statuses.push(params));
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as Record<string, any>);
    return firstInterpretation(request.params as Record<string, any>) as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  clients.push(client);
  const request = (method: string, params: Record<string, unknown>) => client.request({ method, params } as never, Loose) as Promise<Record<string, any>>;
  return { client, statuses, asked, request };
}

async function modernClient(capabilities: Record<string, unknown>) {
  const client = new Client({ name: 'e2e-tasks-modern', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
  clients.push(client);
  return client;
}

// The Tasks extension from a 2026-07-28 client: the SDK's client has no runtime for it (it
// refuses a `resultType: "task"` answer and will not send tasks/get to a 2026-07-28 server), so
// these go as plain 2026-07-28 HTTP requests, with the routing headers the extension asks for.
async function modernRequest(method: string, params: Record<string, unknown>, name = params.taskId, capabilities: Record<string, unknown> = { extensions: { [TASKS_EXTENSION]: {} } }): Promise<Record<string, any>> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'e2e-tasks-raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const response = await fetch(`${svc.base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(name),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  const json = text.trimStart().startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data:')) ?? 'data: {}').slice(5);
  return JSON.parse(json);
}

const textOf = (result: any): string => result.content?.map((c: any) => c.text ?? '').join('') ?? '';

async function settled(get: () => Promise<Record<string, any>>, timeoutMs = 30_000): Promise<Record<string, any>> {
  return poll(async () => {
    const task = await get();
    return ['completed', 'failed', 'cancelled'].includes(task.status) && task;
  }, 'the task reaches a terminal status', timeoutMs);
}

const T = suite('e2e tasks');

T.before(async () => {
  svc = await startService({
    config: {
      mcpServers: {
        everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'] },
        jobs: { command: node, args: [backendFixture('runs-tasks-2026.mjs')], protocolVersion: '2026-07-28' },
      },
    },
    args: ['--health-rate-limit', '0'],
  });
  await svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    return body.status === 'healthy' && body;
  }, 'the backends connected', 30_000);
});

T.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await svc.stop();
});

T('e2e tasks :: a 2025 client: the tool is listed as task-only, runs as a task, tasks/get then tasks/result; tasks/list shows its own tasks only', async () => {
  const { client, request, statuses } = await legacyClient();
  const other = await legacyClient();
  assert.ok(client.getServerCapabilities()?.tasks, 'tasks are advertised: the backend offers them');
  const tool = (await client.listTools()).tools.find((t) => t.name === RESEARCH) as Record<string, any> | undefined;
  assert.is(tool?.execution?.taskSupport, 'required', 'the listing keeps execution.taskSupport');

  const created = await request('tools/call', { name: RESEARCH, arguments: { topic: 'gateways' }, task: { ttl: 60_000 } });
  const taskId: string = created.task.taskId;
  assert.is(created.task.status, 'working');
  assert.match(taskId, /^[\w-]+\.[\w-]+$/, 'the gateway\'s signed id, not the backend\'s');

  const done = await settled(() => request('tasks/get', { taskId }));
  assert.is(done.status, 'completed');
  assert.is(done.taskId, taskId);
  const result = await request('tasks/result', { taskId });
  assert.match(textOf(result), /Research Report: gateways/);
  assert.is(result._meta?.['io.modelcontextprotocol/related-task']?.taskId, taskId, 'the related-task mark names the client-facing id');

  const listed = await request('tasks/list', {});
  assert.ok(listed.tasks.some((t: any) => t.taskId === taskId), 'its own task is listed');
  assert.ok(statuses.length > 0, 'the backend\'s status notifications reach the session that created the task');
  assert.ok(statuses.every((s) => s.taskId === taskId), 'under the client-facing id');
  assert.is(other.statuses.length, 0, 'and no other session');

  // Another session neither sees nor reads it.
  assert.is((await other.request('tasks/list', {})).tasks.length, 0, 'another session lists none of it');
  const refused = await other.request('tasks/get', { taskId }).catch((error) => error);
  assert.instance(refused, Error);
  assert.match(refused.message, /Unknown task: this session did not create it/);
  const cancel = await other.request('tasks/cancel', { taskId }).catch((error) => error);
  assert.match(String(cancel.message), /Unknown task: this session did not create it/);
  // Nor does a 2026-07-28 request, which belongs to no session.
  const stateless = await modernRequest('tasks/get', { taskId });
  assert.is(stateless.error?.code, -32602);
  assert.match(stateless.error?.message, /Unknown task: it belongs to a 2025 session/);
});

T('e2e tasks :: a forged or altered task id is refused; a cancelled task says so', async () => {
  const { request } = await legacyClient();
  const forged = await request('tasks/get', { taskId: 'not-a-task' }).catch((error) => error);
  assert.match(String(forged.message), /Unknown task: not a task id this service handed out/);

  const created = await request('tools/call', { name: RESEARCH, arguments: { topic: 'cancel me' }, task: { ttl: 60_000 } });
  const taskId: string = created.task.taskId;
  const [body, mac] = taskId.split('.');
  const ref = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
  const altered = `${Buffer.from(JSON.stringify({ ...ref, b: 'other' })).toString('base64url')}.${mac}`;
  const refused = await request('tasks/get', { taskId: altered }).catch((error) => error);
  assert.match(String(refused.message), /Unknown task: not a task id this service handed out/, 'a task id cannot be pointed at another backend');

  const cancelled = await request('tasks/cancel', { taskId });
  assert.is(cancelled.taskId, taskId);
  const status = await settled(() => request('tasks/get', { taskId }));
  assert.is(status.status, 'cancelled');
});

T('e2e tasks :: a 2026-07-28 client with the Tasks extension gets a task handle and polls tasks/get until it carries the result', async () => {
  const client = await modernClient({ extensions: { [TASKS_EXTENSION]: {} } });
  const caps = client.getServerCapabilities() as Record<string, any>;
  assert.ok(caps.extensions?.[TASKS_EXTENSION], 'server/discover advertises the extension');
  assert.not.ok(caps.tasks, 'and not the 2025-11-25 tasks capability');
  const { result: handle } = await modernRequest('tools/call', { name: RESEARCH, arguments: { topic: 'eras' } }, RESEARCH);
  assert.is(handle.resultType, 'task');
  assert.is(handle.status, 'working');
  assert.type(handle.taskId, 'string');
  assert.ok('ttlMs' in handle, 'the extension\'s field names');

  const done = await settled(async () => (await modernRequest('tasks/get', { taskId: handle.taskId })).result);
  assert.is(done.status, 'completed');
  assert.is(done.taskId, handle.taskId);
  assert.match(textOf(done.result), /Research Report: eras/, 'tasks/get carries the result (the extension has no tasks/result)');

  const noResult = await modernRequest('tasks/result', { taskId: handle.taskId });
  assert.is(noResult.error?.code, -32601, 'tasks/result is not a 2026-07-28 method');
  assert.is((await modernRequest('tasks/list', {}, undefined)).error?.code, -32601, 'nor is tasks/list');
  const undeclared = await modernRequest('tasks/get', { taskId: handle.taskId }, handle.taskId, {});
  assert.is(undeclared.error?.code, -32021, 'tasks/get from a client that did not declare the extension');

  const { result: second } = await modernRequest('tools/call', { name: RESEARCH, arguments: { topic: 'cancelled' } }, RESEARCH);
  const ack = await modernRequest('tasks/cancel', { taskId: second.taskId });
  assert.equal(ack.error, undefined);
  const { _meta: _envelope, ...acknowledged } = ack.result;
  assert.equal(acknowledged, { resultType: 'complete' }, 'an empty acknowledgement');
  const cancelled = await settled(async () => (await modernRequest('tasks/get', { taskId: second.taskId })).result);
  assert.is(cancelled.status, 'cancelled');
  const update = await modernRequest('tasks/update', { taskId: second.taskId, inputResponses: { 'input-999': { action: 'accept' } } });
  assert.equal(update.error, undefined, 'answers to questions that are not outstanding are ignored');
});

T('e2e tasks :: a task that asks for input: a 2025 client is asked on its tasks/result stream; a 2026-07-28 client sees inputRequests in tasks/get and answers with tasks/update', async () => {
  const legacy = await legacyClient();
  const created = await legacy.request('tools/call', { name: RESEARCH, arguments: { topic: 'python', ambiguous: true }, task: { ttl: 60_000 } });
  const report = await legacy.request('tasks/result', { taskId: created.task.taskId });
  assert.is(legacy.asked.length, 1, 'the backend\'s question reached the session that waits for the task');
  // Marked with the client's task id, not the backend's (found by an outside check).
  assert.is(legacy.asked[0]!._meta?.['io.modelcontextprotocol/related-task']?.taskId, created.task.taskId);
  assert.match(textOf(report), /Clarification/);
  assert.not.match(textOf(report), /elicitation unavailable/);

  const { result: handle } = await modernRequest('tools/call', { name: RESEARCH, arguments: { topic: 'python', ambiguous: true } }, RESEARCH);
  const waiting = await poll(async () => {
    const { result } = await modernRequest('tasks/get', { taskId: handle.taskId });
    return (result.status === 'input_required' || ['completed', 'failed', 'cancelled'].includes(result.status)) && result;
  }, 'the task asks for input', 30_000);
  assert.is(waiting.status, 'input_required');
  const [key, question] = Object.entries(waiting.inputRequests as Record<string, any>)[0]!;
  assert.is(question.method, 'elicitation/create');
  assert.is(question.params._meta?.['io.modelcontextprotocol/related-task']?.taskId, handle.taskId, "the client's task id, not the backend's");
  assert.match(question.params.message, /could have multiple interpretations/);
  const again = await modernRequest('tasks/get', { taskId: handle.taskId });
  assert.equal(Object.keys(again.result.inputRequests ?? {}), [key], 'the same question under the same key while it is outstanding');
  const ack = await modernRequest('tasks/update', { taskId: handle.taskId, inputResponses: { [key]: firstInterpretation(question.params) } });
  assert.equal(ack.error, undefined);
  const done = await settled(async () => (await modernRequest('tasks/get', { taskId: handle.taskId })).result);
  assert.is(done.status, 'completed');
  assert.match(textOf(done.result), /Clarification/);
  assert.not.match(textOf(done.result), /elicitation unavailable|User declined|User cancelled/, 'the answer reached the backend');
});

T('e2e tasks :: a 2026-07-28 backend\'s own tasks (the extension) pass through to a 2026-07-28 client under the gateway\'s ids', async () => {
  const { result: handle } = await modernRequest('tools/call', { name: 'jobs_agent_slow_job', arguments: { ms: 300 } }, 'jobs_agent_slow_job');
  assert.is(handle.resultType, 'task');
  assert.is(handle.status, 'working');
  assert.match(handle.taskId, /^[\w-]+\.[\w-]+$/, 'the gateway\'s signed id');
  const done = await settled(async () => (await modernRequest('tasks/get', { taskId: handle.taskId })).result);
  assert.is(done.status, 'completed');
  assert.is(done.taskId, handle.taskId);
  assert.match(textOf(done.result), /^job [0-9a-f-]+ done$/, 'the result came from the backend');

  const { result: second } = await modernRequest('tools/call', { name: 'jobs_agent_slow_job', arguments: { ms: 60_000 } }, 'jobs_agent_slow_job');
  const ack = await modernRequest('tasks/cancel', { taskId: second.taskId });
  assert.equal(ack.error, undefined);
  assert.is((await modernRequest('tasks/get', { taskId: second.taskId })).result.status, 'cancelled');

  const undeclared = await modernRequest('tools/call', { name: 'jobs_agent_slow_job', arguments: {} }, 'jobs_agent_slow_job', {});
  assert.is(undeclared.error?.code, -32021, 'a client without the extension: the backend says what it needs');
  assert.equal(undeclared.error?.data?.requiredCapabilities, { extensions: { [TASKS_EXTENSION]: {} } });
});

T('e2e tasks :: a 2026-07-28 client without the extension is told which capability the task-only tool needs', async () => {
  const client = await modernClient({});
  const refused = await client.callTool({ name: RESEARCH, arguments: { topic: 'x' } }).catch((error) => error);
  assert.instance(refused, Error);
  assert.is(refused.code, -32021);
  assert.equal(refused.data?.requiredCapabilities, { extensions: { [TASKS_EXTENSION]: {} } });
});

T('e2e tasks :: a task of a backend that restarted fails, naming the backend: its session is told, the log counts it, polling says why', async () => {
  const { request, statuses } = await legacyClient();
  const created = await request('tools/call', { name: RESEARCH, arguments: { topic: 'lost' }, task: { ttl: 60_000 } });
  const logged = svc.logs.length;
  await callControl(socketPath(svc.dir), 'restart', { server: 'everything' }, { timeoutMs: 30_000 });
  await svc.waitFor(async () => {
    const { body } = await svc.get('/health');
    return body.status === 'healthy' && body;
  }, 'the backend is back', 30_000);
  const lost = await poll(async () => {
    const error = await request('tasks/get', { taskId: created.task.taskId }).catch((e) => e);
    return error instanceof Error && /restarted/.test(error.message) && error;
  }, 'the old task fails as restarted');
  assert.match(lost.message, /Backend 'everything' restarted since it created this task/);
  const failed = await poll(async () => statuses.find((s) => s.taskId === created.task.taskId && s.status === 'failed'), 'the session hears its task failed');
  assert.match(failed.statusMessage, /Backend 'everything' restarted: the task and its result are lost/);
  const line = await poll(async () => svc.logs.slice(logged).find((l) => /task\(s\) of backend 'everything' were lost when it restarted/.test(String(l.msg))), 'the log line');
  assert.is(line.tasks, 1);
});

T.run();
