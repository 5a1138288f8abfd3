import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import { backendFixture, harness, stdioSpec } from './helpers/runner-harness.ts';

const LIMIT = 64 * 1024;
let nextCallId = 1;
const call = (name: string, args: Record<string, unknown>): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: args }, wantsProgress: false });

for (const protocolVersion of ['legacy', 'auto'] as const) {
  test(`message limit :: an answer over the limit fails that call, naming the limit; the next call works (${protocolVersion})`, async () => {
    const h = harness(stdioSpec('big', backendFixture('answers-too-large.mjs'), { protocolVersion }), { maxMessageBytes: LIMIT });
    try {
      await h.runner.start();
      await h.next('connected');
      const outcome = await h.runner.request(call('big', { bytes: 100_000 }));
      assert.ok(!outcome.ok, 'the call failed');
      const match = /^backend 'big' sent a message of (\d+) bytes, over the limit of 65536 bytes \(--max-message-bytes\)$/.exec(outcome.error.message);
      assert.ok(match, outcome.error.message);
      assert.ok(Number(match[1]) > 100_000);
      assert.equal((outcome.error.data as { code?: string; limit?: number }) , { code: 'message_too_large', bytes: Number(match[1]), limit: LIMIT }, "the catalogue's code reaches the client in data");
      const next = await h.runner.request(call('echo', { text: 'still here' }));
      assert.equal(next.ok && next.result.content, [{ type: 'text', text: 'still here' }]);
      assert.ok(!h.events.some((e) => e.type === 'exited' || e.type === 'failed'));
    } finally {
      await h.close();
    }
  });
}

test('message limit :: an answer just under the limit passes', async () => {
  const h = harness(stdioSpec('big', backendFixture('answers-too-large.mjs')), { maxMessageBytes: LIMIT });
  try {
    await h.runner.start();
    await h.next('connected');
    const outcome = await h.runner.request(call('big', { bytes: LIMIT - 1024 }));
    assert.ok(outcome.ok && JSON.stringify(outcome.result).length > LIMIT - 1024);
  } finally {
    await h.close();
  }
});

test('message limit :: an oversized message that answers no request is logged with its size', async () => {
  // Logging notifications are a 2025-era message.
  const h = harness(stdioSpec('big', backendFixture('answers-too-large.mjs'), { protocolVersion: 'legacy' }), { maxMessageBytes: LIMIT });
  try {
    await h.runner.start();
    await h.next('connected');
    const outcome = await h.runner.request(call('big_log', { bytes: 100_000 }));
    assert.equal(outcome.ok && outcome.result.content, [{ type: 'text', text: 'logged' }]);
    const warning = h.logs.find((l) => l.msg === 'skipped a message from the backend over the size limit');
    assert.ok(warning, JSON.stringify(h.logs));
    assert.is(warning.limit, LIMIT);
    assert.ok(Number(warning.bytes) > 100_000);
    assert.ok(!h.events.some((e) => e.type === 'backendLog'), 'the skipped notification is not delivered');
  } finally {
    await h.close();
  }
});

test.run();
