import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import { Catalog, VIEW_CACHE_ENTRIES } from '../../lib/hub/catalog.ts';
import { parseTagFilter } from '../../lib/shared/tag-filter.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';
import type { BackendSource } from '../../lib/hub/backends.ts';

const silent = pino({ level: 'silent' });
const tool = (name: string, description = name) => ({ name, description, inputSchema: { type: 'object' as const } });

function table() {
  const backends = new Map<string, BackendState>();
  const t: BackendSource = { get: (name) => backends.get(name), all: () => backends.values(), disabled: () => [] };
  const add = (name: string, tags: string[], tools: string[], phase: 'connected' | 'failed' = 'connected') => {
    const b = newBackendState(name, tags, null);
    b.phase = phase;
    b.instructions = `use ${name}`;
    b.inventory = { tools: tools.map((n) => tool(n)), resources: [{ uri: `${name}://r`, name: 'r' }], prompts: [{ name: 'p' }], resourceTemplates: [] };
    backends.set(name, b);
    return b;
  };
  return { t, add };
}

test('catalog :: qualified names of connected backends only, with instructions per server', () => {
  const { t, add } = table();
  add('a', ['x'], ['one']);
  add('b', ['y'], ['two'], 'failed');
  const view = new Catalog(t, silent).view(null);
  assert.equal(view.tools.map((x) => x.name), ['a_agent_one']);
  assert.equal(view.resources.map((r) => r.uri), ['a_agent_a://r']);
  assert.equal(view.prompts.map((p) => p.name), ['a_agent_p']);
  assert.is(view.instructions, '## a\nuse a');
});

test('catalog :: a qualified tool name over 64 characters is not exposed', () => {
  const { t, add } = table();
  add('server', [], ['ok', 'x'.repeat(60)]);
  assert.equal(new Catalog(t, silent).view(null).tools.map((x) => x.name), ['server_agent_ok']);
});

test('catalog :: a tag filter selects backends; an invisible backend resolves as unknown', () => {
  const { t, add } = table();
  add('a', ['x'], ['one']);
  add('b', ['y'], ['two']);
  const catalog = new Catalog(t, silent);
  const onlyY = parseTagFilter('y');
  assert.equal(catalog.view(onlyY).tools.map((x) => x.name), ['b_agent_two']);
  assert.equal(catalog.resolve('a_agent_one', onlyY), { error: 'unknown' });
  assert.equal('backend' in catalog.resolve('b_agent_two', onlyY), true);
});

test('catalog :: disabled tools are hidden and overrides applied; invalidate() picks up changes', () => {
  const { t, add } = table();
  const b = add('a', [], ['one', 'two']);
  const catalog = new Catalog(t, silent);
  assert.is(catalog.view(null).tools.length, 2);
  b.toolPolicy = { disabledTools: ['two'], toolDescriptionOverrides: { one: 'better' } };
  assert.is(catalog.view(null).tools.length, 2, 'cached until invalidated');
  catalog.invalidate();
  assert.equal(catalog.view(null).tools.map((x) => [x.name, x.description]), [['a_agent_one', 'better']]);
});

test('catalog :: signatures change with lists and with tags, not otherwise', () => {
  const { t, add } = table();
  const b = add('a', ['x'], ['one']);
  const catalog = new Catalog(t, silent);
  const before = catalog.signatures();
  catalog.invalidate();
  assert.equal(catalog.signatures(), before);
  b.tags = ['z'];
  catalog.invalidate();
  const after = catalog.signatures();
  assert.is.not(after.tools, before.tools);
});

test('catalog :: a backend connecting with tools only changes the tool signature only', () => {
  const { t, add } = table();
  add('a', ['x'], ['one']);
  const catalog = new Catalog(t, silent);
  const before = catalog.signatures();
  const tools = add('tools-only', ['t'], ['two']);
  tools.inventory = { ...tools.inventory!, resources: [], prompts: [] };
  catalog.invalidate();
  const after = catalog.signatures();
  assert.is.not(after.tools, before.tools);
  assert.is(after.prompts, before.prompts, 'no prompts/list_changed for a backend without prompts');
  assert.is(after.resources, before.resources, 'no resources/list_changed for a backend without resources');
  tools.tags = ['retagged'];
  catalog.invalidate();
  assert.is(catalog.signatures().prompts, before.prompts, 'its tags do not touch the prompt list either');
});

test('catalog :: the view cache is bounded: 10,000 distinct filters keep at most VIEW_CACHE_ENTRIES views', () => {
  const { t, add } = table();
  add('a', ['x'], ['one']);
  const catalog = new Catalog(t, silent);
  const cache = (catalog as unknown as { cache: Map<string, unknown> }).cache;
  for (let i = 0; i < 10_000; i++) catalog.view(parseTagFilter(`x or tag${i}`));
  assert.is(cache.size, VIEW_CACHE_ENTRIES);
  // The most recently used view survives newer ones.
  const keep = parseTagFilter('x or kept');
  const kept = catalog.view(keep);
  for (let i = 0; i < VIEW_CACHE_ENTRIES - 1; i++) {
    catalog.view(parseTagFilter(`x or more${i}`));
    assert.is(catalog.view(keep), kept);
  }
});

test("catalog :: a view's list digests change with what that view shows, and only then", () => {
  const { t, add } = table();
  const a = add('a', ['x'], ['one']);
  const catalog = new Catalog(t, silent);
  const onlyX = parseTagFilter('x');
  const before = { x: catalog.listDigests(onlyX), all: catalog.listDigests(null) };
  assert.is(catalog.listDigests(onlyX), before.x, 'kept with its view until a change');
  add('b', ['y'], ['two']);
  catalog.invalidate();
  assert.equal(catalog.listDigests(onlyX), before.x, 'a backend outside the filter changes nothing it shows');
  const all = catalog.listDigests(null);
  assert.is.not(all.tools, before.all.tools);
  assert.is.not(all.prompts, before.all.prompts);
  assert.is.not(all.resources, before.all.resources);
  a.inventory!.tools.push(tool('three'));
  catalog.invalidate();
  const after = catalog.listDigests(onlyX);
  assert.is.not(after.tools, before.x.tools, 'a tool of its own backend');
  assert.equal([after.prompts, after.resources], [before.x.prompts, before.x.resources], 'the other lists are untouched');
  const withThree = catalog.listDigests(onlyX).tools;
  a.toolPolicy = { disabledTools: ['three'], toolDescriptionOverrides: {} };
  catalog.invalidate();
  assert.is.not(catalog.listDigests(onlyX).tools, withThree, 'a tool its policy hides');
  a.tags = ['z'];
  catalog.invalidate();
  assert.is.not(catalog.listDigests(onlyX).tools, after.tools, 'a backend leaving the filter by its tags');
});

test.run();
