// The resources clients want updates of, held for one backend across its connections (2025 era,
// real SDK client and server): asked once per URI, asked again on a new connection, a refusal
// is the caller's answer and is not remembered, an unsubscribe reaches the backend.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ResourceSubscriptions } from '../../lib/backend/resource-subscriptions.ts';
import { connectedPair } from './helpers/in-memory-backend.ts';

const quiet = { warn: () => undefined, debug: () => undefined };

async function subscribingBackend() {
  const asked: string[] = [];
  const pair = await connectedPair(
    (server) => {
      server.registerResource('a', 'mem://a', {}, async () => ({ contents: [] }));
      server.server.setRequestHandler('resources/subscribe', async (request) => {
        asked.push(`subscribe ${request.params.uri}`);
        return {};
      });
      server.server.setRequestHandler('resources/unsubscribe', async (request) => {
        asked.push(`unsubscribe ${request.params.uri}`);
        return {};
      });
    },
    { resources: { subscribe: true } },
  );
  return { ...pair, asked };
}

test('resource subscriptions :: a URI is asked of the backend once, however many clients want it; unsubscribing tells it', async () => {
  const backend = await subscribingBackend();
  const subscriptions = new ResourceSubscriptions({ name: 'db', requestTimeout: 5_000 }, quiet);
  try {
    assert.equal(await subscriptions.subscribe(backend.client, 'mem://a'), { ok: true, result: {} });
    assert.equal(await subscriptions.subscribe(backend.client, 'mem://a'), { ok: true, result: {} });
    await subscriptions.unsubscribe(backend.client, 'mem://a');
    await subscriptions.unsubscribe(backend.client, 'mem://a');
    assert.equal(backend.asked, ['subscribe mem://a', 'unsubscribe mem://a']);
  } finally {
    await backend.close();
  }
});

test('resource subscriptions :: wanted while no client is connected: asked as soon as one is, and again on every new connection', async () => {
  const subscriptions = new ResourceSubscriptions({ name: 'db', requestTimeout: 5_000 }, quiet);
  assert.equal(await subscriptions.subscribe(null, 'mem://a'), { ok: true, result: {} });
  for (const round of [1, 2]) {
    const backend = await subscribingBackend();
    try {
      subscriptions.resubscribe(backend.client);
      const deadline = Date.now() + 5_000;
      while (!backend.asked.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(backend.asked, ['subscribe mem://a'], `connection ${round}`);
    } finally {
      await backend.close();
    }
  }
});

test("resource subscriptions :: a backend's refusal is the answer, names the backend's error, and is not remembered", async () => {
  const pair = await connectedPair((server) => server.registerResource('a', 'mem://a', {}, async () => ({ contents: [] })), { resources: {} });
  const warned: unknown[] = [];
  const subscriptions = new ResourceSubscriptions({ name: 'db', requestTimeout: 5_000 }, { warn: (fields: unknown) => void warned.push(fields), debug: () => undefined });
  try {
    const outcome = await subscriptions.subscribe(pair.client, 'mem://a');
    assert.is(outcome.ok, false);
    assert.is((outcome as { error: { kind: string } }).error.kind, 'mcp');
    // Not remembered: a new connection does not ask for it again (nothing to warn about).
    subscriptions.resubscribe(pair.client);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(warned, []);
  } finally {
    await pair.close();
  }
});

test.run();
