import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { createStateCodec } from '../../lib/hub/request-state.ts';
import { createTaskIdCodec } from '../../lib/hub/task-ids.ts';
import { createdTask2025, isCreatedTask2026, modernTask, RELATED_TASK, takesTasks, TaskOwners, TASKS_EXTENSION, withoutTasksExtension, withRelatedTask } from '../../lib/hub/tasks.ts';
import { mergedCapabilities } from '../../lib/hub/capabilities.ts';

const key = randomBytes(32);
const codec = createTaskIdCodec(key, 'service-a');
const ref = { b: 'everything', w: 2, c: 5, t: 'backend-task-1' };

test('task ids :: a minted id opens to the backend, worker, connection and backend task id; the same task always gets the same id', () => {
  const id = codec.mint(ref);
  assert.equal(codec.open(id), ref);
  assert.is(codec.mint(ref), id);
  assert.is.not(codec.mint({ ...ref, c: 6 }), id, 'another connection, another id');
});

test('task ids :: forged, altered, foreign and requestState-shaped ids are refused', () => {
  const id = codec.mint(ref);
  const [body, mac] = id.split('.');
  const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), b: 'other' })).toString('base64url');
  const refusals: [string, unknown, RegExp][] = [
    ['altered backend', `${altered}.${mac}`, /not a task id this service handed out/],
    ['made up', 'abc.def', /not a task id/],
    ['no signature', body, /not a task id/],
    ['not a string', 7, /not a string/],
    ['another key', createTaskIdCodec(randomBytes(32), 'service-a').mint(ref), /not a task id/],
    ['a requestState signed with the same key', createStateCodec(key, 'service-a', 60_000).mint({ k: 'pass', b: 'everything' }), /not a task id/],
    ['an earlier run of the service', createTaskIdCodec(key, 'service-b').mint(ref), /before the service restarted/],
  ];
  for (const [name, input, reason] of refusals) assert.throws(() => codec.open(input), reason, name);
});

test('tasks :: the two eras\' task handles are told apart', () => {
  assert.equal(createdTask2025({ task: { taskId: 'a', status: 'working' } }), { taskId: 'a', status: 'working' });
  assert.is(createdTask2025({ content: [] }), null);
  assert.is(createdTask2025({ task: { status: 'working' } }), null, 'no id, no task');
  assert.ok(isCreatedTask2026({ resultType: 'task', taskId: 'b' }));
  assert.not.ok(isCreatedTask2026({ resultType: 'complete', taskId: 'b' }));
});

test('tasks :: a 2025-11-25 task in the extension\'s spelling: ttl → ttlMs (null when unlimited), pollInterval → pollIntervalMs, our id', () => {
  const backend = { taskId: 'inner', status: 'working', statusMessage: 'Gathering', createdAt: 'c', lastUpdatedAt: 'u', ttl: 60000, pollInterval: 1000 };
  assert.equal(modernTask(backend, 'ours'), { status: 'working', statusMessage: 'Gathering', createdAt: 'c', lastUpdatedAt: 'u', taskId: 'ours', ttlMs: 60000, pollIntervalMs: 1000 });
  assert.equal(modernTask({ taskId: 'inner', status: 'working', ttl: null }, 'ours'), { status: 'working', taskId: 'ours', ttlMs: null });
});

test('tasks :: a related-task mark is renamed to the client-facing id; a result without one is left alone', () => {
  const result = { content: [], _meta: { [RELATED_TASK]: { taskId: 'inner' }, other: 1 } };
  assert.equal(withRelatedTask(result, 'ours'), { content: [], _meta: { [RELATED_TASK]: { taskId: 'ours' }, other: 1 } });
  const plain = { content: [] };
  assert.is(withRelatedTask(plain, 'ours'), plain);
});

test('tasks :: a 2026-07-28 backend is not told the client takes tasks; other capabilities stay', () => {
  const caps = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {}, other: { x: 1 } } };
  assert.equal(withoutTasksExtension(caps), { elicitation: {}, extensions: { other: { x: 1 } } });
  const plain = { sampling: {} };
  assert.is(withoutTasksExtension(plain), plain);
});

test('tasks :: a 2026-07-28 client takes tasks only when its request declares the extension', () => {
  assert.ok(takesTasks({ extensions: { [TASKS_EXTENSION]: {} } }));
  assert.not.ok(takesTasks({ extensions: {} }));
  assert.not.ok(takesTasks({}));
  assert.not.ok(takesTasks(undefined));
});

test('tasks :: owners: a task is its creator\'s; a session that ends and a backend that goes take theirs', () => {
  const owners = new TaskOwners();
  const a = { taskStatus: () => undefined };
  const b = { taskStatus: () => undefined };
  owners.claim(a, 'x', '1');
  owners.claim(a, 'y', '1');
  owners.claim(b, 'x', '2');
  assert.is(owners.ownerOf('x', '1'), a);
  assert.is(owners.ownerOf('y', '1'), a, 'the same backend id on two backends: two tasks');
  assert.is(owners.ownerOf('x', '2'), b);
  owners.drop(a);
  assert.is(owners.ownerOf('x', '1'), undefined);
  assert.is(owners.ownerOf('x', '2'), b);
  owners.forget('x');
  assert.is(owners.size, 0);
});

test('capabilities :: a backend offering 2025-11-25 tool tasks: tasks for 2025 clients, the extension for 2026-07-28 ones; a 2026-07-28 backend\'s extension is not passed on', () => {
  const legacy = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  assert.equal(mergedCapabilities([legacy]), { tools: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, extensions: { [TASKS_EXTENSION]: {} } });
  assert.equal(mergedCapabilities([{ tools: {}, extensions: { [TASKS_EXTENSION]: {} } }]), { tools: { listChanged: true } });
  assert.equal(mergedCapabilities([{ tools: {}, tasks: { list: {} } }]), { tools: { listChanged: true } }, 'tasks for no request the gateway routes: not advertised');
});

test.run();
