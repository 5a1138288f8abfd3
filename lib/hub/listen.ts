// A 2026-07-28 client's `subscriptions/listen` with `resourceSubscriptions` (issue 15). The SDK's
// listen router serves the stream: it acknowledges the filter of the request body it is given
// and delivers, on each stream, the `resource_updated` events of its bus whose URI that filter
// names. The hub first subscribes the requested client-facing URIs like `resources/subscribe`
// does (reference-counted per backend resource), hands the SDK the body narrowed to the URIs it
// could subscribe (the acknowledgement omits the others, as the spec says), publishes each
// backend update once on the bus, and lets go when the stream ends.
import type { BackendFilter } from '../shared/tag-filter.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import type { Subscriber } from './subscriptions.ts';

/** What a listen stream needs of the router: `resources/subscribe`'s reference-counted subscriptions. */
export type ListenRouter = {
  subscribe(subscriber: Subscriber, qualifiedUri: string, filter: BackendFilter): Promise<void>;
  dropSubscriber(subscriber: Subscriber): void;
};

/** The stream's subscriptions: what was acknowledged, and how to let go of it (idempotent). */
export type ListenSubscriptions = { honoured: string[]; release(): void };

/** The client-facing URIs a `subscriptions/listen` body asks for, or null when it asks for none (or is malformed: the SDK answers it). */
export function requestedResources(body: unknown): string[] | null {
  if (!isPlainObject(body) || body.method !== 'subscriptions/listen' || !isPlainObject(body.params)) return null;
  const notifications = body.params.notifications;
  if (!isPlainObject(notifications)) return null;
  const uris = notifications.resourceSubscriptions;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === 'string')) return null;
  return [...new Set(uris as string[])];
}

/** The body with `resourceSubscriptions` narrowed to `honoured` (left out when none is). */
export function narrowedBody(body: Record<string, unknown>, honoured: string[]): Record<string, unknown> {
  const params = body.params as Record<string, unknown>;
  const { resourceSubscriptions: _asked, ...notifications } = params.notifications as Record<string, unknown>;
  return { ...body, params: { ...params, notifications: honoured.length ? { ...notifications, resourceSubscriptions: honoured } : notifications } };
}

export class ListenStreams {
  private readonly pending = new Set<string>();

  /** `publish` puts a client-facing URI's update on the listen router's bus. */
  constructor(
    private readonly router: ListenRouter,
    private readonly publish: (clientUri: string) => void,
  ) {}

  // Every stream subscribed to a resource is its own subscriber, and the bus reaches each stream
  // that names the URI: one backend update is published once, not once per stream.
  private updated(clientUri: string): void {
    if (this.pending.has(clientUri)) return;
    this.pending.add(clientUri);
    queueMicrotask(() => {
      this.pending.delete(clientUri);
      this.publish(clientUri);
    });
  }

  /** Subscribes one stream to the URIs it asks for; those the router refuses (unknown, not connected, refused by the backend) are left out. */
  async open(uris: string[], filter: BackendFilter): Promise<ListenSubscriptions> {
    const subscriber: Subscriber = { resourceUpdated: (clientUri) => this.updated(clientUri) };
    const outcomes = await Promise.allSettled(uris.map((uri) => this.router.subscribe(subscriber, uri, filter)));
    let released = false;
    return {
      honoured: uris.filter((_, i) => outcomes[i]!.status === 'fulfilled'),
      release: () => {
        if (released) return;
        released = true;
        this.router.dropSubscriber(subscriber);
      },
    };
  }
}

/**
 * The listen response, with `release` called once its stream ends: the client went away (the
 * request's signal, the stream cancelled) or the server closed it (shutdown). An answer that is
 * not a stream (a refusal) releases at once.
 */
export function releasedWithStream(response: Response, signal: AbortSignal, release: () => void): Response {
  const source = response.body;
  if (!source || !response.headers.get('content-type')?.startsWith('text/event-stream') || signal.aborted) {
    release();
    return response;
  }
  const reader = source.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal.removeEventListener('abort', end);
    release();
  };
  signal.addEventListener('abort', end, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
