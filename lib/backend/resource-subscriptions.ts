// The resources some client wants updates of, held for one backend across its reconnects: asked
// of the backend when first wanted (its error is the answer) and again on every new connection.
// 2025 era: resources/subscribe and unsubscribe; 2026-07-28: one subscriptions/listen stream per URI.
import { type Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { CallOutcome } from '../shared/messages/calls.ts';
import { toWireError } from '../shared/messages/state-events.ts';
import type { Logger } from '../shared/logger.ts';
import { callErrorOf, failureFields } from './call-errors.ts';

type Listening = { close(): Promise<void> };

export class ResourceSubscriptions {
  // URI → its listen stream (2026-07-28), or null (2025 era, or asked and not acknowledged yet).
  private readonly wanted = new Map<string, Listening | null>();

  constructor(
    private readonly backend: { name: string; requestTimeout: number },
    private readonly log: Pick<Logger, 'warn' | 'debug'>,
  ) {}

  /** A client wants updates of `uri`; `client` is the backend's connected client (null while none is: asked on connect). */
  async subscribe(client: Client | null, uri: string): Promise<CallOutcome> {
    if (this.wanted.has(uri)) return { ok: true, result: {} };
    this.wanted.set(uri, null);
    if (!client) return { ok: true, result: {} };
    try {
      await this.ask(client, uri);
      return { ok: true, result: {} };
    } catch (error) {
      this.wanted.delete(uri);
      return { ok: false, error: callErrorOf(this.backend.name, this.backend.requestTimeout, error, false) };
    }
  }

  /** No client wants `uri` any more: its stream closes, or the backend is told (2025). */
  async unsubscribe(client: Client | null, uri: string): Promise<void> {
    if (!this.wanted.has(uri)) return;
    const listening = this.wanted.get(uri);
    this.wanted.delete(uri);
    if (!client) return;
    try {
      if (listening) await listening.close();
      else if (client.getProtocolEra() !== 'modern') await client.unsubscribeResource({ uri }, { timeout: this.backend.requestTimeout });
    } catch (error) {
      this.log.debug({ uri, err: toWireError(error).message }, 'could not unsubscribe from a resource');
    }
  }

  /** A new connection: every URI still wanted is asked for again. */
  resubscribe(client: Client): void {
    for (const uri of this.wanted.keys()) {
      this.wanted.set(uri, null);
      this.ask(client, uri).catch((error) =>
        this.log.warn({ uri, ...failureFields(this.backend.name, this.backend.requestTimeout, error) }, 'could not re-establish a resource subscription after the backend reconnected'),
      );
    }
  }

  private async ask(client: Client, uri: string): Promise<void> {
    const timeout = this.backend.requestTimeout;
    if (client.getProtocolEra() !== 'modern') return void (await client.subscribeResource({ uri }, { timeout }));
    const subscription = await client.listen({ resourceSubscriptions: [uri] }, { timeout });
    // The acknowledgement names what the backend will send: a URI left out is refused (no subscribe support).
    const honoured = (subscription.honoredFilter as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
    if (!Array.isArray(honoured) || !honoured.includes(uri)) {
      await subscription.close();
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Backend '${this.backend.name}' does not offer updates of ${uri}: its acknowledgement of subscriptions/listen left it out (no resources.subscribe support)`);
    }
    // Kept if still wanted and no other listen (an earlier ask that came back first) holds the URI.
    if (this.wanted.has(uri) && this.wanted.get(uri) === null) this.wanted.set(uri, subscription);
    else await subscription.close();
  }
}
