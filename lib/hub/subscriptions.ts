// Resource subscriptions of a hub's clients (issue 15), reference-counted per backend URI: the
// backend's worker is asked once, when the first client subscribes, and let go when the last
// one unsubscribes or ends; an update reaches the subscribed clients only, under the URI they
// know (`<server>_agent_<uri>`). The worker counts hubs the same way and re-subscribes after a
// backend reconnects.
import { ProtocolError } from '@modelcontextprotocol/server';
import { qualify } from '../shared/names.ts';
import { sanitize } from '../shared/sanitize.ts';
import type { LinkOutcome } from './link-types.ts';
import { failureData } from './failure-data.ts';

/** A client that takes `notifications/resources/updated` (a 2025 session, a listen stream). */
export type Subscriber = { resourceUpdated(clientUri: string): void };

type Link = { subscribe(uri: string): Promise<LinkOutcome>; unsubscribe(uri: string): void };

const keyOf = (backend: string, uri: string) => `${backend}\u0000${uri}`;

export class ResourceSubscriptions {
  private readonly entries = new Map<string, { backend: string; uri: string; subscribers: Set<Subscriber>; ready: Promise<void> }>();

  /** Subscribes; the backend's refusal (for the first subscriber) is thrown as its error. */
  async add(subscriber: Subscriber, backend: string, uri: string, link: Link): Promise<void> {
    const key = keyOf(backend, uri);
    const existing = this.entries.get(key);
    if (existing) {
      existing.subscribers.add(subscriber);
      return existing.ready.catch(() => this.add(subscriber, backend, uri, link));
    }
    const entry = { backend, uri, subscribers: new Set([subscriber]), ready: Promise.resolve() };
    entry.ready = link.subscribe(uri).then((outcome) => {
      if ('parked' in outcome || outcome.ok) return;
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw new ProtocolError(outcome.error.code, sanitize(outcome.error.message), failureData(outcome.error, backend));
    });
    this.entries.set(key, entry);
    return entry.ready;
  }

  remove(subscriber: Subscriber, backend: string, uri: string, link: Link | undefined): void {
    const key = keyOf(backend, uri);
    const entry = this.entries.get(key);
    if (!entry?.subscribers.delete(subscriber) || entry.subscribers.size > 0) return;
    this.entries.delete(key);
    link?.unsubscribe(uri);
  }

  /** A client ended: its subscriptions go. */
  drop(subscriber: Subscriber, links: (backend: string) => Link | undefined): void {
    for (const entry of [...this.entries.values()]) if (entry.subscribers.has(subscriber)) this.remove(subscriber, entry.backend, entry.uri, links(entry.backend));
  }

  /** The backend said the resource changed. */
  updated(backend: string, uri: string): void {
    const entry = this.entries.get(keyOf(backend, uri));
    if (!entry) return;
    const clientUri = qualify(backend, uri);
    for (const subscriber of entry.subscribers) subscriber.resourceUpdated(clientUri);
  }

  /**
   * The backend has a new worker (the old one died), which knows of no subscription: it is asked
   * for each of them again (it subscribes when its backend connects).
   */
  relink(backend: string, link: Link): void {
    for (const entry of this.entries.values()) if (entry.backend === backend) void link.subscribe(entry.uri);
  }

  /** A backend left the configuration: nobody hears from it any more. */
  forget(backend: string): void {
    for (const [key, entry] of this.entries) if (entry.backend === backend) this.entries.delete(key);
  }

  /** How many clients are subscribed to a backend resource (tests, status). */
  count(backend: string, uri: string): number {
    return this.entries.get(keyOf(backend, uri))?.subscribers.size ?? 0;
  }
}
