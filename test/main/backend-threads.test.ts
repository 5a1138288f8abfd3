import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { type BackendThread, BackendThreads } from '../../lib/main/backend-threads.ts';
import type { WorkerEvent } from '../../lib/shared/messages/state-events.ts';

const FIXTURE = new URL('../fixtures/workers/hosts-backends.mjs', import.meta.url).pathname;

type Opened = { name: string; thread: BackendThread; events: WorkerEvent[]; exits: number[] };

function open(threads: BackendThreads, name: string, nice = 10): Opened {
  const { port2 } = new MessageChannel();
  const thread = threads.open({ name, nice, file: FIXTURE, workerData: { spec: { name }, api: port2 }, onOutput: () => undefined });
  const opened: Opened = { name, thread, events: [], exits: [] };
  thread.on('message', (event) => opened.events.push(event));
  thread.on('exit', (code) => opened.exits.push(code));
  return opened;
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
};
const hosted = (o: Opened) => o.events.find((e) => e.type === 'log' && e.msg === 'hosted') as (WorkerEvent & { fields: { name: string; threadId: number } }) | undefined;

test('backend threads :: 5 backends, 2 per worker: 3 workers; each backend hears its own events', async () => {
  const threads = new BackendThreads(2);
  const all = ['a', 'b', 'c', 'd', 'e'].map((n) => open(threads, n));
  await until('every backend hosted', () => all.every((o) => hosted(o)));
  assert.equal(all.map((o) => hosted(o)!.fields.name), ['a', 'b', 'c', 'd', 'e'], 'each event reached its own backend');
  const tid = (o: Opened) => hosted(o)!.fields.threadId;
  assert.equal([tid(all[0]!) === tid(all[1]!), tid(all[2]!) === tid(all[3]!), tid(all[1]!) === tid(all[2]!)], [true, true, false]);
  assert.is(threads.workers, 3);
  await Promise.all(all.map((o) => o.thread.terminate()));
  assert.is(threads.workers, 0, 'the last backend to leave ends its worker');
});

test('backend threads :: a backend that leaves is released; the worker stays for the others', async () => {
  const threads = new BackendThreads(3);
  const [a, b] = [open(threads, 'a'), open(threads, 'b')];
  await until('both hosted', () => Boolean(hosted(a) && hosted(b)));
  await b.thread.terminate();
  await until('b released', () => a.events.some((e) => e.type === 'log' && e.msg === 'released' && e.fields.name === 'b'));
  assert.is(threads.workers, 1);
  const c = open(threads, 'c');
  await until('c hosted in the same worker', () => Boolean(hosted(c)));
  assert.is(hosted(c)!.fields.threadId, hosted(a)!.fields.threadId);
  await Promise.all([a, c].map((o) => o.thread.terminate()));
});

test('backend threads :: backends of another nice value get another worker; a dying worker reaches all its backends', async () => {
  const threads = new BackendThreads(4);
  const [a, b, other] = [open(threads, 'a'), open(threads, 'b'), open(threads, 'x', 19)];
  await until('all hosted', () => [a, b, other].every((o) => hosted(o)));
  assert.is.not(hosted(other)!.fields.threadId, hosted(a)!.fields.threadId);
  assert.is(threads.workers, 2);
  // The fixture throws on 'crash': the worker exits with code 1.
  (threads as unknown as { groups: Set<{ worker: { postMessage(m: unknown): void }; first: string }> }).groups.forEach((g) => g.first === 'a' && g.worker.postMessage({ type: 'crash' }));
  await until('both backends of the worker saw it end', () => a.exits.length === 1 && b.exits.length === 1);
  assert.equal(other.exits, [], 'the other worker is untouched');
  assert.is(threads.workers, 1);
  await other.thread.terminate();
});

test('backend threads :: one per worker: a worker of its own each (the default)', async () => {
  const threads = new BackendThreads(1);
  const [a, b] = [open(threads, 'a'), open(threads, 'b')];
  await until('both hosted', () => Boolean(hosted(a) && hosted(b)));
  assert.is.not(hosted(a)!.fields.threadId, hosted(b)!.fields.threadId);
  await Promise.all([a, b].map((o) => o.thread.terminate()));
});

test.run();
