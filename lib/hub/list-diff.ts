// The catalog diff as a pure core: one signature per list kind, from the unfiltered view and the
// backends that contribute to each list, and which kinds differ between two of them. The
// notifier (notifier.ts) drives it; the catalog (catalog.ts) supplies the view and the backends.
import type { BackendState } from '../shared/backend-state.ts';

export type ListKind = 'tools' | 'prompts' | 'resources';
/** The lists of a view, whatever their entries' types. */
type Lists = { tools: readonly unknown[]; prompts: readonly unknown[]; resources: readonly unknown[]; resourceTemplates: readonly unknown[] };

export type ListSignatures = Record<ListKind, string>;

export const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/**
 * Tags decide what filtered sessions see, so a list's signature includes the tags of the backends
 * that contribute to it, and of no other: a backend without prompts that connects or changes its
 * tags does not change the prompt list.
 */
export function listSignatures(view: Lists, visible: readonly Pick<BackendState, 'name' | 'tags' | 'inventory'>[]): ListSignatures {
  const tagsOf = (has: (inventory: NonNullable<BackendState['inventory']>) => boolean) => JSON.stringify(visible.filter((b) => b.inventory && has(b.inventory)).map((b) => [b.name, b.tags]));
  return {
    tools: JSON.stringify([view.tools, tagsOf((i) => i.tools.length > 0)]),
    prompts: JSON.stringify([view.prompts, tagsOf((i) => i.prompts.length > 0)]),
    resources: JSON.stringify([view.resources, view.resourceTemplates, tagsOf((i) => i.resources.length + i.resourceTemplates.length > 0)]),
  };
}

/** The kinds whose lists changed from `before` to `after`, in LIST_KINDS order. */
export function changedLists(before: ListSignatures, after: ListSignatures): ListKind[] {
  return LIST_KINDS.filter((kind) => before[kind] !== after[kind]);
}
