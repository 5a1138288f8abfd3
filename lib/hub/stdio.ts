// `agent serve --transport stdio`: one client on stdin/stdout, either protocol era, served by
// hub 0 over the byte pump (the main thread reads stdin and writes stdout). Serving starts after
// the initial load: until then the client's first messages wait in the channel.
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Catalog } from './catalog.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChangeNotifier } from './notifier.ts';
import type { InitialLoadGate, Router } from './router.ts';
import { createGatewayServer, sendListChanged } from './server-factory.ts';
import { ChannelStdioTransport, type StdioChannel } from './stdio-transport.ts';

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
  const transport = new ChannelStdioTransport(channel, maxMessageBytes);
  const handle = (initialLoad?.settled() ?? Promise.resolve()).then(() =>
    closed
      ? null
      : serveStdio(
          () => {
            current = createGatewayServer({ catalog, router, filter: null, lazyTools });
            return current;
          },
          { transport, onerror: (error) => log.debug({ err: error.message }, 'MCP stdio error') },
        ),
  );
  const unsubscribe = notifier.subscribe((kind) => {
    if (current) sendListChanged(current, kind).catch(() => undefined);
  });
  return {
    async close() {
      closed = true;
      unsubscribe();
      await (await handle)?.close().catch(() => undefined);
    },
  };
}
