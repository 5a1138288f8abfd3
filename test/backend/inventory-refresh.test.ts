import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendCall } from '../../lib/shared/messages/calls.ts';
import { backendFixture, harness, stdioSpec } from './helpers/runner-harness.ts';

let nextCallId = 1;
const call = (name: string): BackendCall => ({ callId: nextCallId++, method: 'tools/call', params: { name, arguments: {} }, wantsProgress: false });
const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();

for (const protocolVersion of ['legacy', 'auto'] as const) {
  test(`inventory refresh :: changes announced during a refresh are read by one more refresh (${protocolVersion})`, async () => {
    const h = harness(stdioSpec('lists', backendFixture('changes-list-during-refresh.mjs'), { protocolVersion }));
    try {
      await h.runner.start();
      const connected = await h.next('connected');
      assert.equal(names(connected.inventory.tools), ['grow', 'list_count']);
      const from = h.events.length;
      const grown = await h.runner.request(call('grow'));
      assert.ok(grown.ok, JSON.stringify(grown));
      const complete = await h.next('inventory', (e) => e.inventory.tools.some((t) => t.name === 'fourth'), from, 10_000);
      assert.equal(names(complete.inventory.tools), ['first', 'fourth', 'grow', 'list_count', 'second', 'third']);
      const inventories = h.events.slice(from).filter((e) => e.type === 'inventory');
      assert.is(inventories.length, 2, 'the stale answer, then one more refresh');
      const count = await h.runner.request(call('list_count'));
      assert.equal(count.ok && count.result.content, [{ type: 'text', text: '3' }], 'connect, the held refresh, one more: not one per notification');
    } finally {
      await h.close();
    }
  });
}

test.run();
