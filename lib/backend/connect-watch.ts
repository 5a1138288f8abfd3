// Follows a transport through an MCP connect: which step is running (for an error that names
// it), and a connectionTimeout on the steps the SDK does not time itself. The SDK times the
// version probe, initialize and subscriptions/listen; it waits without a limit for the
// transport's start (an SSE server that never sends its endpoint event) and for the
// notifications/initialized send (an HTTP server that never answers that POST).
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export type ConnectStep = 'transport' | 'probe' | 'initialize' | 'initialized' | 'lists';

/** A step the SDK does not time ran out of connectionTimeout. */
export class ConnectStepTimeout extends Error {
  constructor(readonly step: ConnectStep) {
    super(`the MCP connect's ${step} step timed out`);
  }
}

export type ConnectWatch = {
  /** The step that runs now (the last one begun). */
  step: ConnectStep;
  /** Gives the transport its own methods back; the watch ends. */
  release(): void;
  /** The start was superseded: a step still waiting fails now instead of at its timeout. */
  cancel(): void;
};

/** Wraps `transport.start` and `transport.send` until `release()`; both keep their behaviour. */
export function watchConnect(transport: Transport, timeoutMs: number): ConnectWatch {
  const start = Object.getOwnPropertyDescriptor(transport, 'start');
  const send = Object.getOwnPropertyDescriptor(transport, 'send');
  const originalStart = transport.start;
  const originalSend = transport.send;
  const waiting = new Set<(error: Error) => void>();
  const within = <T>(promise: Promise<T>, step: ConnectStep): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    let fail!: (error: Error) => void;
    const expired = new Promise<never>((_, reject) => {
      fail = reject;
      timer = setTimeout(() => reject(new ConnectStepTimeout(step)), timeoutMs);
    });
    waiting.add(fail);
    return Promise.race([promise, expired]).finally(() => {
      clearTimeout(timer);
      waiting.delete(fail);
    });
  };
  const watch: ConnectWatch = {
    step: 'transport',
    release() {
      restore(transport, 'start', start);
      restore(transport, 'send', send);
    },
    cancel() {
      for (const fail of waiting) fail(new Error('the start was superseded'));
    },
  };
  transport.start = () => within(originalStart.call(transport), 'transport');
  transport.send = (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
    const step = STEP_OF[('method' in message && message.method) || ''];
    const sending = originalSend.call(transport, message, options);
    if (!step) return sending;
    watch.step = step;
    // The notification's send has no timer of the SDK's; the requests' sends get one as long as
    // the SDK's own, so that cancel() can end an HTTP request still waiting for its answer.
    return within(sending, step);
  };
  return watch;
}

// The messages of a connect and the step each one begins. Others (a 2026-07-28 backend's
// subscriptions/listen, whose answer is a stream that stays open) are not timed here.
const STEP_OF: Record<string, ConnectStep | undefined> = { 'server/discover': 'probe', initialize: 'initialize', 'notifications/initialized': 'initialized' };

/** What a start that ran out of connectionTimeout at `step` says. */
export function connectTimeoutMessage(step: ConnectStep, connectionTimeout: number, transportType: string, protocolVersion = 'auto'): string {
  const after = `after ${connectionTimeout} ms (connectionTimeout)`;
  switch (step) {
    case 'transport':
      return transportType === 'sse'
        ? `the SSE stream sent no endpoint event ${after}`
        : `opening the ${transportType} connection timed out ${after}`;
    case 'probe':
      // Pinned to 2026-07-28, a server that does not answer server/discover does not speak it.
      return protocolVersion === '2026-07-28'
        ? `the protocol version probe (server/discover) got no answer ${after}: the backend does not seem to speak 2026-07-28; for a 2025 server set "protocolVersion" to "auto" or "legacy"`
        : `the protocol version probe (server/discover) got no answer ${after}; a 2025 server that ignores unknown requests needs "protocolVersion": "legacy"`;
    case 'initialize':
      return `MCP initialize timed out ${after}`;
    case 'initialized':
      return `the backend did not accept notifications/initialized ${after}`;
    case 'lists':
      return `reading the backend's tools, resources and prompts timed out ${after}`;
  }
}

function restore(transport: Transport, key: 'start' | 'send', own: PropertyDescriptor | undefined): void {
  if (own) Object.defineProperty(transport, key, own);
  else delete (transport as Partial<Transport>)[key];
}
