// A 2026-07-28 listen stream's resourceSubscriptions: what a body asks for, the body the SDK is
// given, subscriptions per stream with one publication per update, and the release when the
// stream ends.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ListenStreams, narrowedBody, releasedWithStream, requestedResources } from '../../lib/hub/listen.ts';
import type { Subscriber } from '../../lib/hub/subscriptions.ts';

const listenBody = (notifications: unknown) => ({ jsonrpc: '2.0', id: 'listen:1', method: 'subscriptions/listen', params: { _meta: { m: 1 }, notifications } });

// A router that accepts URIs starting with `ok_agent_` and remembers its subscribers.
function fakeRouter() {
  const subscribers = new Map<Subscriber, string[]>();
  const dropped: Subscriber[] = [];
  return {
    subscribers,
    dropped,
    async subscribe(subscriber: Subscriber, uri: string) {
      if (!uri.startsWith('ok_agent_')) throw new Error(`Unknown resource: ${uri}`);
      subscribers.set(subscriber, [...(subscribers.get(subscriber) ?? []), uri]);
    },
    dropSubscriber(subscriber: Subscriber) {
      dropped.push(subscriber);
      subscribers.delete(subscriber);
    },
  };
}

const L = suite('listen streams');

L('listen :: the URIs a body asks for; anything else is left to the SDK', () => {
  const run = (body: unknown, expected: string[] | null) => assert.equal(requestedResources(body), expected, JSON.stringify(body));
  run(listenBody({ resourceSubscriptions: ['a', 'b', 'a'] }), ['a', 'b']);
  run(listenBody({ toolsListChanged: true }), null);
  run(listenBody({ resourceSubscriptions: [] }), null);
  run(listenBody({ resourceSubscriptions: ['a', 1] }), null);
  run(listenBody('x'), null);
  run({ ...listenBody({ resourceSubscriptions: ['a'] }), method: 'tools/list' }, null);
  run([listenBody({ resourceSubscriptions: ['a'] })], null);
  run(undefined, null);
});

L('listen :: the body given to the SDK names only the honoured URIs, and none when none is', () => {
  const body = listenBody({ toolsListChanged: true, resourceSubscriptions: ['a', 'b'] });
  assert.equal(narrowedBody(body, ['b']), listenBody({ toolsListChanged: true, resourceSubscriptions: ['b'] }));
  assert.equal(narrowedBody(body, []), listenBody({ toolsListChanged: true }));
  assert.equal(body.params.notifications, { toolsListChanged: true, resourceSubscriptions: ['a', 'b'] }, 'the original is left alone');
});

L('listen :: a stream subscribes what it can; one update is published once however many streams hold it; release lets go once', async () => {
  const router = fakeRouter();
  const published: string[] = [];
  const streams = new ListenStreams(router, (uri) => void published.push(uri));
  const one = await streams.open(['ok_agent_x://1', 'nobody_agent_y://2'], null);
  const two = await streams.open(['ok_agent_x://1'], null);
  assert.equal(one.honoured, ['ok_agent_x://1']);
  assert.equal(two.honoured, ['ok_agent_x://1']);
  assert.is(router.subscribers.size, 2);
  for (const subscriber of router.subscribers.keys()) subscriber.resourceUpdated('ok_agent_x://1');
  await Promise.resolve();
  assert.equal(published, ['ok_agent_x://1']);
  for (const subscriber of router.subscribers.keys()) subscriber.resourceUpdated('ok_agent_x://1');
  await Promise.resolve();
  assert.equal(published, ['ok_agent_x://1', 'ok_agent_x://1'], 'a later update is published again');
  one.release();
  one.release();
  assert.is(router.dropped.length, 1);
  assert.is(router.subscribers.size, 1);
});

const sse = (body: ReadableStream<Uint8Array>) => new Response(body, { headers: { 'content-type': 'text/event-stream' } });

L('listen :: released when the stream ends, is cancelled or its request aborted; at once for an answer that is no stream', async () => {
  let released = 0;
  const release = () => void released++;

  // The SDK ends the stream (shutdown): the bytes pass, then release.
  const ended = releasedWithStream(sse(new Response('event: message\ndata: {}\n\n').body!), new AbortController().signal, release);
  assert.is(await ended.text(), 'event: message\ndata: {}\n\n');
  assert.is(released, 1);

  // The pump cancels the body (the client went away).
  let cancelled = false;
  const open = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
  const cut = releasedWithStream(sse(open), new AbortController().signal, release);
  assert.is(cut.headers.get('content-type'), 'text/event-stream');
  await cut.body!.cancel();
  assert.ok(cancelled, 'the SDK stream is cancelled too');
  assert.is(released, 2);

  // The request's signal aborts.
  const abort = new AbortController();
  releasedWithStream(sse(new ReadableStream()), abort.signal, release);
  abort.abort();
  assert.is(released, 3);

  // A refusal (JSON-RPC error) is no stream.
  const refusal = releasedWithStream(Response.json({ error: {} }), new AbortController().signal, release);
  assert.is(released, 4);
  assert.equal(await refusal.json(), { error: {} });
});

L.run();
