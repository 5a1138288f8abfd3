// A real BackendRunner against fixtures named after the failure they cause: a backend stuck in a
// call, one that prints what is not JSON-RPC to its stdout. (One that exits after initialize:
// exits-when-listing.mjs in runner-start.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import { backendFixture, bounded, harness, stdioSpec } from './helpers/runner-harness.ts';

let nextCallId = 1;
const call = (name: string, args: Record<string, unknown> = {}): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: args }, wantsProgress: false });

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

test('runner faults :: a call the backend never answers times out naming the backend, is logged with its code, and the backend keeps serving', async () => {
  const h = harness(stdioSpec('stuck', backendFixture('hangs-on-a-call.mjs'), { requestTimeout: 300 }));
  try {
    await h.runner.start();
    await h.next('connected');
    const outcome = await bounded(h.runner.request(call('hang')), 'the hung call');
    assert.equal(outcome, { ok: false, error: { kind: 'timeout', code: -32603, message: "request to backend 'stuck' timed out after 300 ms (requestTimeout)" } });
    const line = h.logs.find((l) => l.msg === "request to backend 'stuck' timed out after 300 ms (requestTimeout)");
    assert.ok(line, 'the timeout is logged');
    assert.is(line.level, 40, 'at warn');
    assert.equal([line.code, line.method, line.target], ['backend_timeout', 'tools/call', 'hang']);
    const echoed = await h.runner.request(call('echo', { text: 'still here' }));
    assert.ok(echoed.ok && JSON.stringify(echoed.result).includes('still here'), JSON.stringify(echoed));
    await bounded(h.runner.request(call('hang')), 'the second hung call');
    await bounded(h.runner.request(call('hang')), 'the third hung call');
    const health = await h.next('callHealth', (e) => e.consecutiveTimeouts === 2);
    assert.ok(health, 'the answered echo ended the first run');
    const timeouts = () => h.logs.filter((l) => l.code === 'backend_timeout');
    assert.is(timeouts().length, 1, 'the next timeouts within 10 s are counted, not logged one by one');
    h.runner.stop(500);
    await until(() => timeouts().length === 2, 'the summary when the backend stops');
    assert.equal([timeouts()[1]!.calls, timeouts()[1]!.level], [2, 40]);
  } finally {
    await h.close();
  }
});

test('runner faults :: lines on stdout that are not JSON-RPC (text, JSON logs) are skipped: calls work, the first is logged masked, the rest counted', async () => {
  // No token's shape: only the masking of configured secrets can hide it.
  const secret = 'Zq7hunter2Secret9xYwPlK';
  const h = harness(stdioSpec('chatty', backendFixture('writes-garbage-to-stdout.mjs'), { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FIXTURE_SECRET: secret } }));
  try {
    await h.runner.start();
    await h.next('connected');
    const first = h.logs.filter((l) => l.stream === 'stdout');
    assert.is(first.length, 1, 'the banner is logged once; the blank line after it is not');
    assert.is(first[0]!.level, 40);
    assert.match(String(first[0]!.excerpt), /^Starting server v1\.2\.3 \.+ profile /);
    assert.not.ok(JSON.stringify(h.logs).includes(secret.slice(0, 4)), 'no part of the secret, though it crosses the cut');
    const answer = await h.runner.request(call('noisy', { lines: 25 }));
    assert.ok(answer.ok && JSON.stringify(answer.result).includes('printed 25'), JSON.stringify(answer));
    assert.is(h.logs.filter((l) => l.stream === 'stdout').length, 1, 'later lines wait for the window');
    h.runner.stop(500);
    await until(() => h.logs.some((l) => l.stream === 'stdout' && l.ignored !== undefined), 'the summary at the end');
    const summary = h.logs.find((l) => l.stream === 'stdout' && l.ignored !== undefined)!;
    assert.is(summary.ignored, 25);
    assert.is(summary.msg, '25 more line(s) on stdout that are not JSON-RPC messages were ignored');
  } finally {
    await h.close();
  }
});

test.run();
