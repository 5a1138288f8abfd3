import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Catalog, type ListKind } from '../../lib/hub/catalog.ts';
import type { BackendSource } from '../../lib/hub/backends.ts';
import { ChangeNotifier } from '../../lib/hub/notifier.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';

const silent = pino({ level: 'silent' });
const DEBOUNCE = 20;

function setup() {
  const backends = new Map<string, BackendState>();
  const source: BackendSource = { get: (n) => backends.get(n), all: () => backends.values(), disabled: () => [] };
  const catalog = new Catalog(source, silent);
  const add = (name: string, tools: string[], prompts: string[] = []) => {
    const b = newBackendState(name, [], null);
    b.phase = 'connected';
    b.inventory = { tools: tools.map((t) => ({ name: t, inputSchema: { type: 'object' as const } })), resources: [], prompts: prompts.map((p) => ({ name: p })), resourceTemplates: [] };
    backends.set(name, b);
    return b;
  };
  const notifier = new ChangeNotifier(catalog, DEBOUNCE);
  const seen: ListKind[] = [];
  notifier.subscribe((kind) => seen.push(kind));
  return { backends, add, notifier, seen };
}

test('notifier :: a burst of changes makes one notification per changed list, after the debounce', async () => {
  const { add, notifier, seen } = setup();
  add('a', ['one']);
  notifier.changed();
  add('b', ['two']);
  notifier.changed();
  notifier.changed();
  assert.equal(seen, [], 'nothing before the debounce ends');
  await sleep(DEBOUNCE * 3);
  assert.equal(seen, ['tools']);
  notifier.close();
});

test('notifier :: flushPending tells a change in its debounce now, once; with nothing pending it does nothing', async () => {
  const { add, notifier, seen } = setup();
  notifier.flushPending();
  assert.equal(seen, []);
  add('a', ['one']);
  notifier.changed();
  notifier.flushPending();
  assert.equal(seen, ['tools'], 'at once');
  await sleep(DEBOUNCE * 3);
  assert.equal(seen, ['tools'], 'not again when the debounce would have ended');
  notifier.close();
});

test('notifier :: a change that changes nothing visible sends nothing', async () => {
  const { add, notifier, seen } = setup();
  const a = add('a', ['one']);
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  seen.length = 0;
  a.pid = 1234; // not part of any list
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  assert.equal(seen, []);
  notifier.close();
});

test('notifier :: each list is diffed on its own; a backend that goes down withdraws its lists', async () => {
  const { add, notifier, seen } = setup();
  const a = add('a', ['one'], ['greet']);
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  assert.equal(seen.sort(), ['prompts', 'tools']);
  seen.length = 0;
  a.inventory!.prompts.push({ name: 'farewell' });
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  assert.equal(seen, ['prompts']);
  seen.length = 0;
  a.phase = 'failed';
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  assert.equal(seen.sort(), ['prompts', 'tools']);
  notifier.close();
});

test('notifier :: an unsubscribed sink hears nothing; close() drops a pending notification', async () => {
  const { add, notifier, seen } = setup();
  const other: ListKind[] = [];
  const unsubscribe = notifier.subscribe((kind) => other.push(kind));
  unsubscribe();
  add('a', ['one']);
  notifier.changed();
  await sleep(DEBOUNCE * 3);
  assert.equal(other, []);
  assert.equal(seen, ['tools']);
  add('b', ['two']);
  notifier.changed();
  notifier.close();
  await sleep(DEBOUNCE * 3);
  assert.equal(seen, ['tools'], 'no notification after close');
});

test.run();
