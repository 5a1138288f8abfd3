// A backend's lists as the worker reads them: only the kinds its capabilities announce, each in
// full, through a real SDK client and server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { readInventory } from '../../lib/backend/read-inventory.ts';
import { connectedPair } from './helpers/in-memory-backend.ts';

test('read inventory :: tools and prompts of a backend without resources: no resource list is asked for', async () => {
  const pair = await connectedPair(
    (server) => {
      server.registerTool('echo', { description: 'echoes', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      server.registerPrompt('greet', { description: 'a greeting' }, async () => ({ messages: [] }));
    },
    { tools: {}, prompts: {} },
  );
  try {
    const inventory = await readInventory(pair.client, 5_000);
    assert.equal(inventory.tools.map((t) => t.name), ['echo']);
    assert.equal(inventory.prompts.map((p) => p.name), ['greet']);
    assert.equal([inventory.resources, inventory.resourceTemplates], [[], []]);
    assert.not.ok('cacheHints' in inventory, 'a 2025 backend gives no cache hints');
  } finally {
    await pair.close();
  }
});

test('read inventory :: resources and their templates, both read when resources are announced', async () => {
  const pair = await connectedPair(
    (server) => {
      server.registerResource('readme', 'file:///readme', { mimeType: 'text/plain' }, async () => ({ contents: [] }));
    },
    { resources: {} },
  );
  try {
    const inventory = await readInventory(pair.client, 5_000);
    assert.equal(inventory.resources.map((r) => r.uri), ['file:///readme']);
    assert.equal([inventory.tools, inventory.prompts, inventory.resourceTemplates], [[], [], []]);
  } finally {
    await pair.close();
  }
});

test.run();
