// The catalog diff as a table: which lists a change makes the notifier announce.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changedLists, listSignatures } from '../../lib/hub/list-diff.ts';

type Inventory = { tools: unknown[]; prompts: unknown[]; resources: unknown[]; resourceTemplates: unknown[] };
const inventory = (lists: Partial<Inventory> = {}): Inventory => ({ tools: [], prompts: [], resources: [], resourceTemplates: [], ...lists });
const backend = (name: string, tags: string[], lists: Partial<Inventory>) => ({ name, tags, inventory: inventory(lists) as never });
// The view of these backends: their lists side by side (names as the catalog would qualify them).
const viewOf = (backends: ReturnType<typeof backend>[]) => {
  const all = (kind: keyof Inventory) => backends.flatMap((b) => (b.inventory as Inventory)[kind].map((entry) => ({ server: b.name, entry })));
  return { tools: all('tools'), prompts: all('prompts'), resources: all('resources'), resourceTemplates: all('resourceTemplates') };
};
const signaturesOf = (backends: ReturnType<typeof backend>[]) => listSignatures(viewOf(backends), backends);

const toolsOnly = backend('a', ['x'], { tools: ['t1'] });
const withPrompts = backend('b', ['y'], { prompts: ['p1'] });
const withResources = backend('c', [], { resources: ['r1'] });

const cases: [string, ReturnType<typeof backend>[], ReturnType<typeof backend>[], string[]][] = [
  ['nothing changed', [toolsOnly, withPrompts], [toolsOnly, withPrompts], []],
  ['a tool added', [toolsOnly], [backend('a', ['x'], { tools: ['t1', 't2'] })], ['tools']],
  ['a backend with tools only connects: only tools', [withPrompts], [withPrompts, toolsOnly], ['tools']],
  ['a backend with prompts only goes: only prompts', [toolsOnly, withPrompts], [toolsOnly], ['prompts']],
  ['tags of a backend with tools only change: only tools (a filtered session may see it now)', [toolsOnly, withPrompts], [backend('a', ['z'], { tools: ['t1'] }), withPrompts], ['tools']],
  ['a resource template added', [withResources], [backend('c', [], { resources: ['r1'], resourceTemplates: ['rt'] })], ['resources']],
  ['a backend with every list connects', [], [backend('d', [], { tools: ['t'], prompts: ['p'], resources: ['r'] })], ['tools', 'prompts', 'resources']],
  ['a backend with no lists connects: nothing', [toolsOnly], [toolsOnly, backend('e', ['x'], {})], []],
];

for (const [name, before, after, changed] of cases) {
  test(`list diff :: ${name}`, () => assert.equal(changedLists(signaturesOf(before), signaturesOf(after)), changed));
}

test.run();
