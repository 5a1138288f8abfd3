// The worker's shims for the Tasks extension: a task handle crosses the SDK client's result
// check inside `_meta` and comes out as it went in; everything else passes untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Transport } from '@modelcontextprotocol/client';
import { carryTaskHandles, unwrapTaskHandle } from '../../lib/backend/task-handles.ts';

function transport() {
  const seen: unknown[] = [];
  const t = { onmessage: (message: unknown) => void seen.push(message) } as unknown as Transport;
  carryTaskHandles(t);
  return { deliver: (message: unknown) => t.onmessage!(message as never), seen };
}

test('task handles :: a task handle reaches the client as a complete result carrying it, and unwraps to what the backend sent', () => {
  const { deliver, seen } = transport();
  const handle = { resultType: 'task', taskId: 't1', status: 'working', ttlMs: 1000 };
  deliver({ jsonrpc: '2.0', id: 4, result: handle });
  const carried = seen[0] as { id: number; result: Record<string, unknown> };
  assert.is(carried.id, 4);
  assert.is(carried.result.resultType, 'complete');
  assert.equal(carried.result.content, []);
  assert.equal(unwrapTaskHandle(carried.result), handle);
});

test('task handles :: other results, requests and notifications pass untouched; a plain result unwraps to itself', () => {
  const { deliver, seen } = transport();
  const messages = [
    { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [] } },
    { jsonrpc: '2.0', id: 2, method: 'elicitation/create', params: { resultType: 'task' } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
    { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'x' } },
  ];
  for (const m of messages) deliver(m);
  assert.equal(seen, messages);
  const plain = { content: [], _meta: { other: 1 } };
  assert.is(unwrapTaskHandle(plain), plain);
});

test.run();
