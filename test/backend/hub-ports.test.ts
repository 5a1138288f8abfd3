// HubPorts, the backend worker's ends of the hubs' channels: a backend's question goes to the one
// hub with calls in flight, is answered or parked, and a parked one is resumed by a retry through
// any hub, or voided (input timeout, call ended, backend gone) with a reason a late retry hears.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { HubPorts, type CallRunner } from '../../lib/backend/hub-ports.ts';
import type { BackendCall, BackendToHub, CallOutcome, HubToBackend } from '../../lib/shared/messages/calls.ts';

type Pending = { call: BackendCall; settle: (outcome: CallOutcome) => void };

// A runner whose calls stay open until the test settles them; it records pauses and cancels.
function fakeRunner() {
  const calls: Pending[] = [];
  const cancelled: number[] = [];
  const paused = new Map<number, number>();
  const backendAsked: string[] = [];
  const runner: CallRunner = {
    request: (call) => new Promise((settle) => calls.push({ call, settle })),
    subscribe: async (uri) => (backendAsked.push(`+${uri}`), { ok: true, result: {} }),
    unsubscribe: async (uri) => void backendAsked.push(`-${uri}`),
    cancel: (id) => void cancelled.push(id),
    pauseTimeout: (id) => void paused.set(id, (paused.get(id) ?? 0) + 1),
    resumeTimeout: (id) => void paused.set(id, (paused.get(id) ?? 0) - 1),
  };
  return { runner, calls, paused, backendAsked, cancelled };
}

// A hub's end: what it received, and a way to send.
function hub(ports: HubPorts, index: number) {
  const { port1, port2 } = new MessageChannel();
  const received: BackendToHub[] = [];
  const waiters: (() => void)[] = [];
  port1.on('message', (m: BackendToHub) => {
    received.push(m);
    for (const w of waiters.splice(0)) w();
  });
  ports.attach(index, port2 as MessagePort);
  const next = async <T extends BackendToHub['type']>(type: T): Promise<Extract<BackendToHub, { type: T }>> => {
    for (;;) {
      const found = received.find((m) => m.type === type);
      if (found) {
        received.splice(received.indexOf(found), 1);
        return found as Extract<BackendToHub, { type: T }>;
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { send: (m: HubToBackend) => port1.postMessage(m), next, close: () => port1.close() };
}

const ticks = () => new Promise((r) => setTimeout(r, 20));
const callMessage = (callId: number): HubToBackend => ({ type: 'call', callId, method: 'tools/call', params: { name: 't' }, wantsProgress: false });

let open: { close(): void }[] = [];
const closeOpen = () => {
  for (const o of open) o.close();
  open = [];
};
const H = suite('hub ports: backend questions');
H.after.each(closeOpen);

// The ports alone, before any hub is attached.
function bare(inputTimeoutMs = 60_000) {
  const fake = fakeRunner();
  const warnings: string[] = [];
  const ports = new HubPorts(fake.runner, { backend: 'b', inputTimeoutMs, warn: (_f, msg) => void warnings.push(msg) });
  return { ...fake, ports, warnings };
}

function setup(inputTimeoutMs = 60_000) {
  const { ports, ...rest } = bare(inputTimeoutMs);
  const hubs = [hub(ports, 0), hub(ports, 1)];
  open.push(...hubs);
  return { ...rest, ports, hubs };
}

H('a question goes to the hub with the call in flight, naming its call; the answer reaches the backend; the call\'s clock pauses meanwhile', async () => {
  const { ports, hubs, calls, paused } = setup();
  hubs[1]!.send(callMessage(7));
  await ticks();
  const asking = ports.ask('elicitation/create', { message: 'ok?' });
  const request = await hubs[1]!.next('inputRequest');
  assert.equal(request.callIds, [7]);
  assert.is(request.method, 'elicitation/create');
  assert.is(paused.get(calls[0]!.call.callId), 1);
  hubs[1]!.send({ type: 'inputResponse', requestId: request.requestId, outcome: { ok: true, result: { action: 'accept' } } });
  assert.equal(await asking, { action: 'accept' });
  assert.is(paused.get(calls[0]!.call.callId), 0, 'the clock runs again');
});

H('with calls of two hubs in flight, or none, the question is refused and logged', async () => {
  const { ports, hubs, warnings } = setup();
  const none = await ports.ask('sampling/createMessage', {}).catch((e: Error) => e);
  assert.match(String((none as Error).message), /no client call is in flight/);
  hubs[0]!.send(callMessage(1));
  hubs[1]!.send(callMessage(1));
  await ticks();
  const both = (await ports.ask('elicitation/create', {}).catch((e: unknown) => e)) as { code: number; message: string };
  assert.is(both.code, -32600);
  assert.match(both.message, /calls of several clients/);
  assert.is(warnings.length, 2);
});

H('a parked question is resumed through another hub: the answer reaches the backend and the call\'s outcome goes to the retrying hub', async () => {
  const { ports, hubs, calls } = setup();
  hubs[0]!.send(callMessage(3));
  await ticks();
  const asking = ports.ask('elicitation/create', {});
  const request = await hubs[0]!.next('inputRequest');
  hubs[0]!.send({ type: 'park', requestId: request.requestId });
  await ticks();
  hubs[1]!.send({ type: 'resume', callId: 42, parkId: request.requestId, outcome: { ok: true, result: { action: 'decline' } } });
  assert.equal(await asking, { action: 'decline' });
  calls[0]!.settle({ ok: true, result: { content: [] } });
  const outcome = await hubs[1]!.next('outcome');
  assert.is(outcome.callId, 42);
  assert.equal(outcome.outcome, { ok: true, result: { content: [] } });

  // The same question cannot be answered twice.
  hubs[1]!.send({ type: 'resume', callId: 43, parkId: request.requestId, outcome: { ok: true, result: {} } });
  const again = await hubs[1]!.next('outcome');
  assert.match(String(!again.outcome.ok && again.outcome.error.message), /unknown \(already answered/);
});

H('a parked question not answered in time fails the backend\'s request; a late retry hears why', async () => {
  const { ports, hubs } = setup(50);
  hubs[0]!.send(callMessage(1));
  await ticks();
  const asking = ports.ask('elicitation/create', {}).catch((e: Error) => e);
  const request = await hubs[0]!.next('inputRequest');
  hubs[0]!.send({ type: 'park', requestId: request.requestId });
  const failed = (await asking) as Error;
  assert.match(failed.message, /did not answer within 50 ms \(--input-timeout\)/);
  hubs[0]!.send({ type: 'resume', callId: 2, parkId: request.requestId, outcome: { ok: true, result: {} } });
  const late = await hubs[0]!.next('outcome');
  assert.match(String(!late.outcome.ok && late.outcome.error.message), /is void: the client did not answer within 50 ms/);
});

H('a backend that goes away voids its parked questions: the retry is told to call again', async () => {
  const { ports, hubs, calls } = setup();
  ports.connected({ protocolVersion: '2025-11-25', inventory: { tools: [], prompts: [], resources: [], resourceTemplates: [] } } as never);
  hubs[0]!.send(callMessage(1));
  await ticks();
  const asking = ports.ask('elicitation/create', {}).catch((e: Error) => e);
  const request = await hubs[0]!.next('inputRequest');
  hubs[0]!.send({ type: 'park', requestId: request.requestId });
  await ticks();
  calls[0]!.settle({ ok: false, error: { kind: 'disconnected', code: -32603, message: 'gone' } });
  ports.disconnected();
  assert.match(((await asking) as Error).message, /restarted or stopped since it asked/);
  hubs[0]!.send({ type: 'resume', callId: 2, parkId: request.requestId, outcome: { ok: true, result: {} } });
  const late = await hubs[0]!.next('outcome');
  assert.match(String(!late.outcome.ok && late.outcome.error.message), /restarted or stopped since it asked this question; call it again/);
});

H('subscriptions are counted per hub: the backend is asked once, updates reach the subscribed hubs, a hub that ends lets go', async () => {
  const { ports, hubs, backendAsked } = setup();
  hubs[0]!.send({ type: 'subscribe', callId: 1, uri: 'file:///x' });
  assert.equal((await hubs[0]!.next('outcome')).outcome, { ok: true, result: {} });
  hubs[1]!.send({ type: 'subscribe', callId: 9, uri: 'file:///x' });
  assert.is((await hubs[1]!.next('outcome')).callId, 9);
  assert.equal(backendAsked, ['+file:///x']);
  ports.resourceUpdated('file:///x');
  assert.equal(await hubs[0]!.next('resourceUpdated'), { type: 'resourceUpdated', uri: 'file:///x' });
  assert.equal(await hubs[1]!.next('resourceUpdated'), { type: 'resourceUpdated', uri: 'file:///x' });
  hubs[0]!.send({ type: 'unsubscribe', uri: 'file:///x' });
  await ticks();
  assert.equal(backendAsked, ['+file:///x'], 'hub 1 still holds it');
  hubs[1]!.close();
  await ticks();
  assert.equal(backendAsked, ['+file:///x', '-file:///x'], 'the last hub ended: the backend is let go');
});

H('a hub that subscribes while the backend is still being asked hears its answer: a refusal reaches both hubs, and a later subscribe asks again', async () => {
  const fake = fakeRunner();
  let answer!: (outcome: CallOutcome) => void;
  let asked = 0;
  fake.runner.subscribe = () => (asked++, new Promise((settle) => (answer = settle)));
  const ports = new HubPorts(fake.runner, { backend: 'b', inputTimeoutMs: 60_000, warn: () => undefined });
  const hubs = [hub(ports, 0), hub(ports, 1)];
  open.push(...hubs);
  hubs[0]!.send({ type: 'subscribe', callId: 1, uri: 'file:///x' });
  await ticks();
  hubs[1]!.send({ type: 'subscribe', callId: 9, uri: 'file:///x' });
  await ticks();
  assert.is(asked, 1, 'the backend is asked once');
  const refusal: CallOutcome = { ok: false, error: { kind: 'mcp', code: -32601, message: "Backend 'b' does not offer updates of file:///x" } };
  answer(refusal);
  assert.equal((await hubs[0]!.next('outcome')).outcome, refusal);
  assert.equal((await hubs[1]!.next('outcome')).outcome, refusal, 'not a premature yes');
  hubs[1]!.send({ type: 'subscribe', callId: 10, uri: 'file:///x' });
  await ticks();
  assert.is(asked, 2, 'nobody holds it: the next subscribe asks the backend again');
  answer({ ok: true, result: {} });
  assert.equal((await hubs[1]!.next('outcome')).outcome, { ok: true, result: {} });
});

H('a hub that lets go while the backend is still being asked leaves nothing behind: the next hub to subscribe asks the backend again', async () => {
  const fake = fakeRunner();
  const answers: ((outcome: CallOutcome) => void)[] = [];
  const asked: string[] = [];
  fake.runner.subscribe = (uri) => (asked.push(`+${uri}`), new Promise((settle) => answers.push(settle)));
  fake.runner.unsubscribe = async (uri) => void asked.push(`-${uri}`);
  const ports = new HubPorts(fake.runner, { backend: 'b', inputTimeoutMs: 60_000, warn: () => undefined });
  const hubs = [hub(ports, 0), hub(ports, 1)];
  open.push(...hubs);
  hubs[0]!.send({ type: 'subscribe', callId: 1, uri: 'u' });
  await ticks();
  hubs[0]!.send({ type: 'unsubscribe', uri: 'u' });
  await ticks();
  hubs[1]!.send({ type: 'subscribe', callId: 2, uri: 'u' });
  await ticks();
  assert.equal(asked, ['+u', '-u', '+u'], 'asked again, not joined to the ask the backend was told to drop');
  answers[0]!({ ok: true, result: {} });
  answers[1]!({ ok: true, result: {} });
  assert.equal((await hubs[1]!.next('outcome')).callId, 2);
  ports.resourceUpdated('u');
  assert.equal(await hubs[1]!.next('resourceUpdated'), { type: 'resourceUpdated', uri: 'u' });
});

H('a task\'s question goes to the hub waiting in that task\'s tasks/result, though another hub has a call in flight; parked, it is found by the task', async () => {
  const { ports, hubs, warnings } = setup();
  hubs[0]!.send(callMessage(1));
  hubs[1]!.send({ type: 'call', callId: 9, method: 'tasks/result', params: { taskId: 'T1' }, wantsProgress: false });
  await ticks();
  const related = { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'T1' } }, message: 'which one?' };
  const asking = ports.ask('elicitation/create', related);
  const request = await hubs[1]!.next('inputRequest');
  assert.equal(request.callIds, [9], 'only the call that waits for the task');
  assert.equal(warnings, []);
  hubs[1]!.send({ type: 'park', requestId: request.requestId });
  await ticks();
  hubs[0]!.send({ type: 'parkedFor', callId: 2, taskId: 'T1' });
  const found = await hubs[0]!.next('outcome');
  assert.equal(found.outcome, { ok: true, result: { parkId: request.requestId, method: 'elicitation/create', params: related } }, 'any hub finds it by the task');
  hubs[0]!.send({ type: 'parkedFor', callId: 3, taskId: 'T2' });
  assert.equal((await hubs[0]!.next('outcome')).outcome, { ok: true, result: {} }, 'another task has none');
  hubs[0]!.send({ type: 'resume', callId: 4, parkId: request.requestId, outcome: { ok: true, result: { action: 'accept' } } });
  assert.equal(await asking, { action: 'accept' });
});

H.run();

// ---------------------------------------------------------------------------------------------
const R = suite('hub ports: a hub that restarts');
R.after.each(closeOpen);

R('calls of a hub whose port is replaced are cancelled, and their answers never reach the new port\'s call of the same number', async () => {
  const { ports, cancelled, ...fake } = bare();
  const before = hub(ports, 0);
  open.push(before);
  before.send(callMessage(1));
  await ticks();
  // The hub restarts: a new port for hub 0, whose calls are numbered from 1 again.
  const after = hub(ports, 0);
  open.push(after);
  after.send(callMessage(1));
  await ticks();
  assert.equal(cancelled, [fake.calls[0]!.call.callId], 'the old hub\'s call is cancelled in the backend');
  fake.calls[0]!.settle({ ok: true, result: { content: [{ type: 'text', text: 'for the old client' }] } });
  ports.progress(fake.calls[0]!.call.callId, { progress: 1 } as never);
  fake.calls[1]!.settle({ ok: true, result: { content: [{ type: 'text', text: 'for the new client' }] } });
  const outcome = await after.next('outcome');
  assert.equal(outcome, { type: 'outcome', callId: 1, outcome: { ok: true, result: { content: [{ type: 'text', text: 'for the new client' }] } } });
  await ticks();
  const more = await Promise.race([after.next('outcome').then(() => 'another outcome'), after.next('progress').then(() => 'a progress'), ticks().then(() => 'nothing')]);
  assert.is(more, 'nothing', 'nothing of the old call reaches the new port');
});

R('calls of a hub whose port closes are cancelled', async () => {
  const { ports, cancelled, ...fake } = bare();
  const dying = hub(ports, 0);
  const other = hub(ports, 1);
  open.push(other);
  dying.send(callMessage(5));
  other.send(callMessage(5));
  await ticks();
  dying.close();
  await ticks();
  assert.equal(cancelled, [fake.calls[0]!.call.callId], 'only the closed hub\'s call');
  fake.calls[1]!.settle({ ok: true, result: {} });
  assert.is((await other.next('outcome')).callId, 5);
});

R.run();
