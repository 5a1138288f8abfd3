// `agent serve --transport stdio`: one client on stdin/stdout, either protocol era. Logs stay on
// stderr; EOF on stdin starts the normal shutdown.
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Catalog } from './catalog.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChangeNotifier } from './notifier.ts';
import type { InitialLoadGate, Router } from './router.ts';
import { createGatewayServer, sendListChanged } from './server-factory.ts';

export type StdioServingOptions = { catalog: Catalog; router: Router; notifier: ChangeNotifier; log: Logger; lazyTools?: boolean; onEnd: () => void; initialLoad?: InitialLoadGate };

export function serveOverStdio({ catalog, router, notifier, log, lazyTools = false, onEnd, initialLoad }: StdioServingOptions) {
  // serveStdio may build a probe instance and then the real one: notify the latest.
  let current: Server | undefined;
  let closed = false;
  // Serving starts after the initial load: until then the client's first messages wait in the pipe.
  const handle = (initialLoad?.settled() ?? Promise.resolve()).then(() =>
    closed
      ? null
      : serveStdio(
          () => {
            current = createGatewayServer({ catalog, router, filter: null, lazyTools });
            return current;
          },
          { onerror: (error) => log.debug({ err: error.message }, 'MCP stdio error') },
        ),
  );
  const unsubscribe = notifier.subscribe((kind) => {
    if (current) sendListChanged(current, kind).catch(() => undefined);
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    log.info('stdin closed: the stdio client is gone');
    onEnd();
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  return {
    async close() {
      closed = true;
      unsubscribe();
      await (await handle)?.close().catch(() => undefined);
    },
  };
}
