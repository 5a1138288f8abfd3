import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import { backendFixture, bounded, harness, STDIO_SERVER, stdioSpec } from './helpers/runner-harness.ts';

let nextCallId = 1;
const call = (name: string, args: Record<string, unknown> = {}): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: args }, wantsProgress: false });
const slowSpec = () => stdioSpec('slow', backendFixture('initializes-slowly.mjs'));
const types = (events: { type: string }[]) => events.map((e) => e.type);

test('runner start :: a start while another connects: the first child is gone before the next is spawned, only the last connects', async () => {
  const h = harness(slowSpec());
  try {
    const first = h.runner.start();
    await h.next('connecting');
    const second = h.runner.start();
    await bounded(Promise.all([first, second]), 'both starts');
    assert.equal(types(h.events), ['connecting', 'connecting', 'connected']);
    assert.equal(h.overlaps, [[]], 'one child at a time');
    const [, latest] = h.pids();
    const connected = await h.next('connected');
    assert.is(connected.pid, latest);
    const answer = await h.runner.request(call('pid'));
    assert.equal(answer.ok && answer.result.content, [{ type: 'text', text: String(latest) }]);
  } finally {
    await h.close();
  }
});

test('runner start :: stop then start while the first start still awaits its connect: the stale start touches nothing', async () => {
  const h = harness(slowSpec());
  try {
    const first = h.runner.start();
    await h.next('connecting');
    const stopped = h.runner.stop(200);
    const second = h.runner.start();
    await bounded(Promise.all([first, stopped, second]), 'start, stop, start');
    // The stop was overtaken by the start: only the start reports.
    assert.equal(types(h.events), ['connecting', 'connecting', 'connected']);
    assert.equal(h.overlaps, [[]]);
    const latest = h.pids()[1];
    const answer = await h.runner.request(call('pid'));
    assert.equal(answer.ok && answer.result.content, [{ type: 'text', text: String(latest) }], 'the new child still serves');
  } finally {
    await h.close();
  }
});

test('runner start :: a stop during a start wins: nothing is reported after stopped', async () => {
  const h = harness(slowSpec());
  try {
    const started = h.runner.start();
    await h.next('connecting');
    await bounded(Promise.all([h.runner.stop(200), started]), 'start and stop');
    assert.equal(types(h.events), ['connecting', 'stopped']);
    assert.equal(h.pids().filter((pid) => h.overlaps.flat().includes(pid)), []);
  } finally {
    await h.close();
  }
});

test('runner start :: a start while connected stops the connected child completely before spawning', async () => {
  const h = harness(stdioSpec('plain', STDIO_SERVER));
  try {
    await h.runner.start();
    const before = await h.next('connected');
    await bounded(h.runner.start(), 'the second start');
    assert.equal(types(h.events), ['connecting', 'connected', 'connecting', 'connected']);
    assert.equal(h.overlaps, [[]], 'the connected child was gone before the next spawn');
    const after = h.events[3]!;
    assert.ok(after.type === 'connected' && after.pid !== before.pid);
    const answer = await h.runner.request(call('echo', { text: 'new' }));
    assert.equal(answer.ok && answer.result.content, [{ type: 'text', text: 'new' }]);
  } finally {
    await h.close();
  }
});

// The lists are read as part of connecting: a requestTimeout shorter than they take does not fail the start.
const listsSlowly = (listDelayMs: number, timeouts: { connectionTimeout: number; requestTimeout: number }, env: Record<string, string> = {}, protocolVersion: 'legacy' | 'auto' = 'legacy') =>
  stdioSpec('lists-slowly', backendFixture('lists-slowly.mjs'), { protocolVersion, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LIST_DELAY_MS: String(listDelayMs), ...env }, ...timeouts });

test('runner start :: the first lists are bounded by connectionTimeout, not requestTimeout', async () => {
  const h = harness(listsSlowly(800, { connectionTimeout: 10_000, requestTimeout: 200 }));
  try {
    await bounded(h.runner.start(), 'the start');
    const connected = await h.next('connected');
    assert.ok(connected.type === 'connected' && connected.inventory.tools.map((t) => t.name).join() === 'pid', JSON.stringify(connected));
    const answer = await h.runner.request(call('pid'));
    assert.equal(answer.ok && answer.result.content, [{ type: 'text', text: String(connected.pid) }], 'calls keep their requestTimeout and are served');
  } finally {
    await h.close();
  }
});

test('runner start :: lists slower than connectionTimeout fail the start with a message naming the lists', async () => {
  // 3 s leaves a loaded machine room to spawn node and initialize; the lists never come in time.
  const h = harness(listsSlowly(30_000, { connectionTimeout: 3_000, requestTimeout: 60_000 }));
  try {
    await bounded(h.runner.start(), 'the start');
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.is(failed.error.message, "reading the backend's tools, resources and prompts timed out after 3000 ms (connectionTimeout)");
    assert.equal(types(h.events), ['connecting', 'failed']);
  } finally {
    await h.close();
  }
});

test('runner start :: each step of the start gets connectionTimeout: a slow era probe, initialize and lists that each fit connect', async () => {
  // 1 s each, under connectionTimeout 2.5 s (the probe's share includes node's start); together
  // 3 s. A busy machine slows every step: one budget for all of them failed healthy backends
  // while 50 started at once.
  const h = harness(listsSlowly(1_000, { connectionTimeout: 2_500, requestTimeout: 200 }, { DISCOVER_DELAY_MS: '1000', INIT_DELAY_MS: '1000' }, 'auto'));
  try {
    await bounded(h.runner.start(), 'the start');
    const connected = await h.next('connected');
    assert.ok(connected.type === 'connected' && connected.inventory.tools.map((t) => t.name).join() === 'pid', JSON.stringify(connected));
    assert.equal(types(h.events), ['connecting', 'connected']);
  } finally {
    await h.close();
  }
});

test('runner start :: an initialize slower than connectionTimeout fails the start with a message naming initialize', async () => {
  const h = harness(listsSlowly(0, { connectionTimeout: 2_000, requestTimeout: 60_000 }, { INIT_DELAY_MS: '30000' }));
  try {
    await bounded(h.runner.start(), 'the start');
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.is(failed.error.message, 'MCP initialize timed out after 2000 ms (connectionTimeout)');
  } finally {
    await h.close();
  }
});

test('runner start :: a backend that dies while its lists are read: the message says so', async () => {
  const h = harness(stdioSpec('exits', backendFixture('exits-when-listing.mjs'), { protocolVersion: 'legacy' }));
  try {
    await bounded(h.runner.start(), 'the start');
    const failed = await h.next('failed');
    assert.ok(failed.type === 'failed');
    assert.match(failed.error.message, /code 3/);
    assert.match(failed.error.message, /while its tools, resources and prompts were read/);
    assert.not.match(failed.error.message, /initialize/);
  } finally {
    await h.close();
  }
});

test.run();
