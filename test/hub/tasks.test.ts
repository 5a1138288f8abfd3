import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { createStateCodec } from '../../lib/hub/request-state.ts';
import { createTaskIdCodec } from '../../lib/hub/task-ids.ts';
import { createdTask2025, isCreatedTask2026, modernTask, takesTasks, TaskOwners, TASKS_EXTENSION } from '../../lib/hub/tasks.ts';
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

test('tasks :: a 2026-07-28 client takes tasks only when its request declares the extension', () => {
  assert.ok(takesTasks({ extensions: { [TASKS_EXTENSION]: {} } }));
  assert.not.ok(takesTasks({ extensions: {} }));
  assert.not.ok(takesTasks({}));
  assert.not.ok(takesTasks(undefined));
});

test('tasks :: owners: a task is its creator\'s, per backend connection; a session that ends, a backend that restarts or goes take theirs', () => {
  const owners = new TaskOwners();
  const a = { taskStatus: () => undefined };
  const b = { taskStatus: () => undefined };
  const task = (backend: string, t: string, c = 1, w = 1) => ({ b: backend, w, c, t });
  owners.claim(a, task('x', '1'));
  owners.claim(a, task('y', '1'));
  owners.claim(b, task('x', '2'));
  assert.is(owners.ownerOf(task('x', '1')), a);
  assert.is(owners.ownerOf(task('y', '1')), a, 'the same backend id on two backends: two tasks');
  assert.is(owners.ownerOf(task('x', '2')), b);
  assert.is(owners.ownerOf(task('x', '1', 2)), undefined, 'the same id on a later connection is another task');
  owners.drop(a);
  assert.is(owners.ownerOf(task('x', '1')), undefined);
  assert.is(owners.ownerOf(task('y', '1')), undefined, 'all of its tasks');
  assert.is(owners.ownerOf(task('x', '2')), b);

  const lost = owners.lostTo('x', 1, 2);
  assert.equal(lost, [{ owner: b, task: task('x', '2') }], 'a reconnect: the earlier connection\'s tasks are lost, once');
  assert.equal(owners.lostTo('x', 1, 2), []);
  owners.claim(b, task('x', '3', 2));
  owners.claim(b, task('x', '4', 2));
  owners.settled(task('x', '4', 2));
  assert.equal(owners.lostTo('x', 2, 1).map((e) => e.task.t), ['3'], 'a new worker starts its connections afresh: another place; a finished task is not lost');
  assert.is(owners.ownerOf(task('x', '4', 2)), undefined, 'but forgotten');
  owners.claim(b, task('z', '9'));
  owners.forget('z');
  assert.is(owners.ownerOf(task('z', '9')), undefined);
});

test('tasks :: owners are bounded: the oldest task is forgotten first', () => {
  const owners = new TaskOwners(2);
  const a = { taskStatus: () => undefined };
  for (const t of ['1', '2', '3']) owners.claim(a, { b: 'x', w: 1, c: 1, t });
  assert.is(owners.ownerOf({ b: 'x', w: 1, c: 1, t: '1' }), undefined);
  assert.is(owners.ownerOf({ b: 'x', w: 1, c: 1, t: '2' }), a);
  assert.is(owners.ownerOf({ b: 'x', w: 1, c: 1, t: '3' }), a);
});

test('capabilities :: a backend offering 2025-11-25 tool tasks: tasks for 2025 clients, the extension for 2026-07-28 ones; a 2026-07-28 backend\'s extension alone', () => {
  const legacy = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  assert.equal(mergedCapabilities([legacy]), { tools: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, extensions: { [TASKS_EXTENSION]: {} } });
  assert.equal(mergedCapabilities([{ tools: {}, extensions: { [TASKS_EXTENSION]: {} } }]), { tools: { listChanged: true }, extensions: { [TASKS_EXTENSION]: {} } });
  assert.equal(mergedCapabilities([{ tools: {}, tasks: { list: {} } }]), { tools: { listChanged: true } }, 'tasks for no request the gateway routes: not advertised');
});

test.run();
