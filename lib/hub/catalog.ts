// The aggregated, client-facing view of every connected backend's tools, prompts and resources,
// filtered per session by tags. Views are cached until a backend changes.
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import type { BackendState } from '../shared/backend-state.ts';
import type { BackendSource } from './backends.ts';
import type { Logger } from '../shared/logger.ts';
import { MAX_TOOL_NAME_LENGTH, qualify, splitQualified } from '../shared/names.ts';
import { isToolDisabled, withEffectiveDescription } from '../shared/tool-policy.ts';
import { type BackendFilter, matchesTags } from '../shared/tag-filter.ts';
import { aggregateHint, type CacheHint } from '../shared/cache-hint.ts';
import { createHash } from 'node:crypto';
import { mergedCapabilities } from './capabilities.ts';
import { type ListKind, listSignatures, type ListSignatures } from './list-diff.ts';

export type CatalogView = {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  instructions: string | undefined;
  /** What the gateway offers this view's clients: the union of its backends' capabilities. */
  capabilities: Record<string, Record<string, unknown>>;
  /** Each aggregated list's cache hint (2026-07-28): its backends' shortest ttl, public only if all are. */
  cacheHints: Record<HintedList, Required<CacheHint>>;
};

export type HintedList = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
const HINTED_LISTS: HintedList[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

export type { ListKind } from './list-diff.ts';

/** One digest per list of a view: what a session last saw of it (ChangeNotifier's sinks compare). */
export type ListDigests = Record<ListKind, string>;

const digestOf = (value: unknown) => createHash('sha1').update(JSON.stringify(value)).digest('base64');

/** Distinct session filters whose views are kept; the least recently used one goes first. */
export const VIEW_CACHE_ENTRIES = 256;

export class Catalog {
  // Insertion order is recency order: a hit is moved to the end.
  private readonly cache = new Map<string, CatalogView>();
  private readonly warnedLongNames = new Set<string>();
  // Until the next invalidate(): each connected backend's share of the lists, and each filter's digests.
  private readonly backendDigests = new Map<string, ListDigests>();
  private readonly filterDigests = new Map<string, ListDigests>();

  constructor(
    private readonly source: BackendSource,
    private readonly log: Logger,
  ) {}

  /** Drops cached views; call when a backend connects, disconnects or changes its lists. */
  invalidate(): void {
    this.cache.clear();
    this.backendDigests.clear();
    this.filterDigests.clear();
  }

  tagsOf(server: string): string[] | undefined {
    return this.source.get(server)?.tags;
  }

  isVisible(b: BackendState, filter: BackendFilter): boolean {
    return filter === null || matchesTags(filter, b.tags);
  }

  /** A configured backend, if the session's filter lets it see it. */
  backend(name: string, filter: BackendFilter): BackendState | undefined {
    const backend = this.source.get(name);
    return backend && this.isVisible(backend, filter) ? backend : undefined;
  }

  /** The connected backends the session's filter lets it see. */
  connected(filter: BackendFilter): BackendState[] {
    return this.visibleBackends(filter);
  }

  private visibleBackends(filter: BackendFilter): BackendState[] {
    return [...this.source.all()].filter((b) => b.phase === 'connected' && b.inventory && this.isVisible(b, filter));
  }

  view(filter: BackendFilter): CatalogView {
    const key = filter === null ? '' : JSON.stringify(filter);
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const visible = this.visibleBackends(filter);
    // Configured backends the view shows, connected or not, as last seen at their connect.
    const configured = [...this.source.all()].filter((b) => this.isVisible(b, filter));
    // A list draws from the backends that offer it; a tag-filtered view is the asker's own.
    const hint = (kind: HintedList) => {
      const capability = kind === 'resourceTemplates' ? 'resources' : kind;
      const sources = visible.filter((b) => b.capabilities?.[capability] !== undefined);
      return aggregateHint(sources.map((b) => b.inventory?.cacheHints?.[kind]), filter === null);
    };
    const view: CatalogView = {
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      instructions: undefined,
      capabilities: mergedCapabilities(configured.map((b) => b.capabilities)),
      cacheHints: Object.fromEntries(HINTED_LISTS.map((kind) => [kind, hint(kind)])) as CatalogView['cacheHints'],
    };
    const instructions: string[] = [];
    for (const b of visible) {
      const inv = b.inventory!;
      for (const tool of inv.tools) {
        if (isToolDisabled(b.name, tool.name, b.toolPolicy)) continue;
        const name = qualify(b.name, tool.name);
        if (name.length > MAX_TOOL_NAME_LENGTH) {
          if (!this.warnedLongNames.has(name)) this.log.warn({ backend: b.name, tool: tool.name, name }, `tool not exposed: its qualified name is longer than ${MAX_TOOL_NAME_LENGTH} characters`);
          this.warnedLongNames.add(name);
          continue;
        }
        view.tools.push({ ...withEffectiveDescription(b.name, tool, b.toolPolicy), name });
      }
      for (const prompt of inv.prompts) view.prompts.push({ ...prompt, name: qualify(b.name, prompt.name) });
      for (const resource of inv.resources) view.resources.push({ ...resource, uri: qualify(b.name, resource.uri) });
      for (const template of inv.resourceTemplates) view.resourceTemplates.push({ ...template, uriTemplate: qualify(b.name, template.uriTemplate) });
      if (b.instructions) instructions.push(`## ${b.name}\n${b.instructions}`);
    }
    if (instructions.length) view.instructions = instructions.join('\n\n');
    if (this.cache.size >= VIEW_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, view);
    return view;
  }

  /**
   * What a session with this filter sees of each list, as digests: equal digests, nothing to tell
   * it. Made of the digests of its visible backends' shares (each hashed once per change), so a
   * thousand sessions with distinct filters cost a walk of the backends each, not a view each.
   */
  listDigests(filter: BackendFilter): ListDigests {
    const key = filter === null ? '' : JSON.stringify(filter);
    let digests = this.filterDigests.get(key);
    if (!digests) {
      const shares = this.visibleBackends(filter).map((b) => [b.name, this.backendShare(b)] as const);
      const of = (kind: ListKind) => digestOf(shares.map(([name, share]) => [name, share[kind]]));
      digests = { tools: of('tools'), prompts: of('prompts'), resources: of('resources') };
      this.filterDigests.set(key, digests);
    }
    return digests;
  }

  // A connected backend's share of each list: what view() draws from it (its tools as its policy shows them).
  private backendShare(b: BackendState): ListDigests {
    let share = this.backendDigests.get(b.name);
    if (!share) {
      const inv = b.inventory!;
      share = {
        tools: digestOf([inv.tools, b.toolPolicy]),
        prompts: digestOf(inv.prompts),
        resources: digestOf([inv.resources, inv.resourceTemplates]),
      };
      this.backendDigests.set(b.name, share);
    }
    return share;
  }

  /** One signature per list kind of the unfiltered view, to tell which lists really changed (list-diff.ts). */
  signatures(): ListSignatures {
    return listSignatures(this.view(null), this.visibleBackends(null));
  }

  /**
   * Finds the backend of a qualified name for a session. A backend outside the session's filter
   * is reported as unknown, like a name that does not exist.
   */
  resolve(qualified: string, filter: BackendFilter): { backend: BackendState; name: string } | { error: 'unknown' } | { error: 'unavailable'; backend: BackendState } {
    const parts = splitQualified(qualified);
    const backend = parts && this.source.get(parts.server);
    if (!parts || !backend || !this.isVisible(backend, filter)) return { error: 'unknown' };
    if (backend.phase !== 'connected') return { error: 'unavailable', backend };
    return { backend, name: parts.name };
  }
}
