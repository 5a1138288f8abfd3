import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import { isAlive } from '../helpers/processes.ts';
import { backendFixture, bounded, harness, stdioSpec } from './helpers/runner-harness.ts';

let nextCallId = 1;
const call = (name: string, args: Record<string, unknown> = {}): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: args }, wantsProgress: false });
const notConnected = (name: string) => ({ ok: false, error: { kind: 'disconnected', code: -32603, message: `Backend '${name}' is not connected` } });

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

test('runner pipes :: a child that closes its stdout and keeps running is stopped and reported as exited', async () => {
  const h = harness(stdioSpec('mute', backendFixture('closes-stdout.mjs')));
  try {
    await h.runner.start();
    const { pid } = await h.next('connected');
    const answer = await h.runner.request(call('close_stdout'));
    assert.ok(answer.ok, JSON.stringify(answer));
    const exited = await h.next('exited');
    assert.is(exited.exit.pid, pid);
    assert.is(exited.exit.signal, 'SIGTERM', 'the polite stop: stdin closed (ignored), then SIGTERM');
    assert.match(exited.error!.message, /^backend process closed its stdout unexpectedly and was stopped \(killed by SIGTERM\)/);
    assert.not.ok(isAlive(pid!), 'gone when reported');
    assert.equal(await h.runner.request(call('close_stdout')), notConnected('mute'));
  } finally {
    await h.close();
  }
});

test('runner pipes :: a child that closes its stdout during initialize is stopped and the start fails', async () => {
  const h = harness(stdioSpec('mute', backendFixture('closes-stdout-at-start.mjs')));
  try {
    await bounded(h.runner.start(), 'start');
    const failed = await h.next('failed');
    const { pid } = await h.next('connecting');
    assert.ok(failed.exit, 'the exit is reported like a child exit');
    assert.is(failed.exit.pid, pid);
    assert.is(failed.exit.signal, 'SIGTERM');
    assert.match(failed.error.message, /^backend process closed its stdout during initialize and was stopped \(killed by SIGTERM\)/);
    assert.not.ok(isAlive(pid!));
  } finally {
    await h.close();
  }
});

test('runner pipes :: a call to a backend whose stdin pipe just broke fails as not connected, never as EPIPE', async () => {
  const h = harness(stdioSpec('deaf', backendFixture('closes-stdin.mjs')));
  try {
    await h.runner.start();
    const { pid } = await h.next('connected');
    const answer = await h.runner.request(call('close_stdin'));
    assert.ok(answer.ok, JSON.stringify(answer));
    await until(() => !fs.existsSync(`/proc/${pid}/fd/0`), 'the child to close its stdin');
    assert.equal(await h.runner.request(call('echo', { text: 'anyone?' })), notConnected('deaf'));
    const exited = await h.next('exited');
    assert.match(exited.error!.message, /^backend process closed its stdin unexpectedly and was stopped \(killed by SIGTERM\)/);
    assert.not.ok(isAlive(pid!));
    assert.equal(await h.runner.request(call('echo', { text: 'again' })), notConnected('deaf'));
    assert.ok(!h.logs.some((l) => /EPIPE/.test(String(l.msg))), 'EPIPE stays out of the log messages');
  } finally {
    await h.close();
  }
});

test('runner pipes :: a child that exits is reported with its exit code, not as a closed pipe', async () => {
  const h = harness(stdioSpec('brief', [backendFixture('exits-after-delay.mjs'), '1500']));
  try {
    await h.runner.start();
    const { pid } = await h.next('connected');
    const exited = await h.next('exited');
    assert.equal({ code: exited.exit.code, signal: exited.exit.signal, pid: exited.exit.pid }, { code: 3, signal: null, pid });
    assert.match(exited.error!.message, /^backend process exited with code 3 unexpectedly/);
  } finally {
    await h.close();
  }
});


test("runner pipes :: a backend's refusal of a subscription reaches the hub with its server's configured secrets masked, as a failed call's error (found by an outside check)", async () => {
  const key = 'counterkey-7f3a9c';
  const h = harness(stdioSpec('counter', backendFixture('counter-with-subscriptions.mjs'), { protocolVersion: 'legacy', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', COUNTER_API_KEY: key } }));
  try {
    await h.runner.start();
    await h.next('connected');
    const refused = await h.runner.subscribe('counter://refuse');
    assert.not.ok(refused.ok, JSON.stringify(refused));
    assert.not.ok(JSON.stringify(refused).includes(key), JSON.stringify(refused));
    assert.equal(refused.ok ? null : [refused.error.message, refused.error.data], ['subscribe refused for key [REDACTED]', { key: '[REDACTED]', '[REDACTED]': 'as a key' }]);
  } finally {
    await h.close();
  }
});

test.run();
