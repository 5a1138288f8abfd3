// Tells connected clients which lists changed: debounced so a burst of backend events makes one
// notification, and diffed so an event that changes nothing visible sends nothing.
import type { Catalog, ListKind } from './catalog.ts';
import { changedLists, type ListSignatures } from './list-diff.ts';

export const CHANGE_DEBOUNCE_MS = 100;

export type ChangeSink = (kind: ListKind) => void;

export class ChangeNotifier {
  private readonly sinks = new Set<ChangeSink>();
  private last: ListSignatures;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly debounceMs = CHANGE_DEBOUNCE_MS,
  ) {
    this.last = catalog.signatures();
  }

  subscribe(sink: ChangeSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** A backend connected, disconnected or changed its lists. */
  changed(): void {
    this.catalog.invalidate();
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.debounceMs);
    this.timer.unref();
  }

  /**
   * A change still in its debounce is told now, to the clients there are: call before a new
   * session answers its initialize (from the catalog as it is), so that it is not told later of
   * a change it already saw.
   */
  flushPending(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.flush();
  }

  private flush(): void {
    const now = this.catalog.signatures();
    for (const kind of changedLists(this.last, now)) for (const sink of this.sinks) sink(kind);
    this.last = now;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.sinks.clear();
  }
}
