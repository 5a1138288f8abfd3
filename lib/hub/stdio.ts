// `agent serve --transport stdio`: one client on stdin/stdout, either protocol era, served by
// hub 0 over the byte pump (the main thread reads stdin and writes stdout). Serving starts after
// the initial load: until then the client's first messages wait in the channel.
import { isJSONRPCNotification, isJSONRPCRequest, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Catalog } from './catalog.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChangeNotifier } from './notifier.ts';
import type { InitialLoadGate } from './link-types.ts';
import type { Router } from './router.ts';
import { createGatewayServer, sendListChanged } from './server-factory.ts';
import { ChannelStdioTransport, type StdioChannel } from './stdio-transport.ts';
import { ListenStreams, narrowedBody, requestedResources } from './listen.ts';

export type StdioServingOptions = {
  catalog: Catalog;
  router: Router;
  notifier: ChangeNotifier;
  log: Logger;
  channel: StdioChannel;
  maxMessageBytes: number;
  lazyTools?: boolean;
  initialLoad?: InitialLoadGate;
};

export function serveOverStdio({ catalog, router, notifier, log, channel, maxMessageBytes, lazyTools = false, initialLoad }: StdioServingOptions) {
  // serveStdio may build a probe instance and then the real one: notify the latest.
  let current: Server | undefined;
  let closed = false;
  let serving = false;
  const transport = new ChannelStdioTransport(channel, maxMessageBytes);
  // A 2026-07-28 client's listen with resourceSubscriptions (as over HTTP, lib/hub/listen.ts): the
  // SDK's stdio listen router acknowledges the narrowed request and routes each update sent
  // through the Server to the subscriptions that name its URI; a cancelled listen or the end of
  // the connection lets go.
  const listens = new ListenStreams(router, (uri) => void current?.sendResourceUpdated({ uri }).catch(() => undefined));
  const held = new Map<string | number, () => void>();
  const letGo = (id: unknown) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    held.get(id)?.();
    held.delete(id);
  };
  transport.intercept = (message: JSONRPCMessage): JSONRPCMessage | Promise<JSONRPCMessage> => {
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') letGo(message.params?.requestId);
    if (!isJSONRPCRequest(message) || message.method !== 'subscriptions/listen') return message;
    const uris = requestedResources(message);
    if (!uris || catalog.view(null).capabilities.resources?.subscribe !== true) return message;
    return listens.open(uris, null).then(({ honoured, release }) => {
      letGo(message.id);
      held.set(message.id, release);
      return narrowedBody(message as unknown as Record<string, unknown>, honoured) as unknown as JSONRPCMessage;
    });
  };
  const handle = (initialLoad?.settled() ?? Promise.resolve()).then(() => {
    // The client's initialize will see the lists as they are now: a change pending is not its news.
    notifier.flushPending();
    serving = !closed;
    return closed
      ? null
      : serveStdio(
          () => {
            current = createGatewayServer({ catalog, router, filter: null, lazyTools, everyList: true });
            return current;
          },
          { transport, onerror: (error) => log.debug({ err: error.message }, 'MCP stdio error') },
        );
  });
  // What the client last saw of each list: a change its lists do not show (a tag) is not told.
  let seen = catalog.listDigests(null);
  const unsubscribe = notifier.subscribe((kind) => {
    const now = catalog.listDigests(null)[kind];
    if (now === seen[kind]) return;
    seen = { ...seen, [kind]: now };
    if (current) sendListChanged(current, kind).catch(() => undefined);
  });
  return {
    async close() {
      closed = true;
      unsubscribe();
      for (const id of [...held.keys()]) letGo(id);
      // Not serving yet (the initial load still under way): the transport answers what waited, without waiting for the load.
      if (!serving) return void (await transport.close());
      await (await handle)?.close().catch(() => undefined);
    },
  };
}
