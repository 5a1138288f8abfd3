import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { lazyCollection, lazySchema } from '../../lib/shared/lazy-schema.ts';

type Wrap = { wrapSchemas: (source: string, file: string) => { contents: string; count: number } };
const plugin = '../../scripts/lazy-schemas.mjs';

type Wrapper = <T extends object>(make: () => T) => T;

/** Runs a module the plugin transformed (its import line left out) with the real zod and these wrappers. */
function runTransformed(contents: string, schema: Wrapper, collection: Wrapper): unknown {
  const body = contents.slice(contents.indexOf('\n') + 1);
  return new Function('z', '__agentLazySchema', '__agentLazyCollection', body)(z, schema, collection);
}

/** `wrap`, counting the values it builds. */
function counting(wrap: Wrapper): { wrap: Wrapper; built: () => number } {
  let built = 0;
  return {
    wrap: (make) =>
      wrap(() => {
        built++;
        return make();
      }),
    built: () => built,
  };
}

test('lazy schema :: built on first use, then behaves as the schema itself', () => {
  let built = 0;
  const Item = lazySchema(() => {
    built++;
    return z.object({ name: z.string() });
  });
  const List = lazySchema(() => z.object({ items: z.array(Item) }));
  assert.is(built, 0, 'nothing built at definition');
  assert.equal(List.parse({ items: [{ name: 'a' }] }), { items: [{ name: 'a' }] });
  assert.is(built, 1, 'built once, when a parse reached it');
  assert.not.ok(List.safeParse({ items: [{ name: 1 }] }).success);
  assert.ok(Item instanceof z.ZodObject, 'instanceof sees the built schema');
  assert.equal(Object.keys(Item.shape), ['name']);
  assert.equal(Item.extend({ size: z.number() }).parse({ name: 'b', size: 2 }), { name: 'b', size: 2 });
  assert.is(built, 1);
});

test('lazy schemas :: the build wraps top-level schema definitions only', async () => {
  const { wrapSchemas } = (await import(plugin)) as Wrap;
  const source = [
    'import * as z from "zod/v4";',
    'const VERSION = "1";',
    'const LIST = ["a", "b"];',
    'const A = z.object({ v: z.literal(VERSION) });',
    'const B = A.extend({ w: z.string() });',
    'const helper = (x) => x;',
    'const C = helper(1);',
    'function f() { const D = z.string(); return D; }',
    'export { A, B, C, f, LIST };',
  ].join('\n');
  const { contents, count } = wrapSchemas(source, 'schemas.mjs');
  assert.is(count, 2);
  assert.ok(contents.includes('const A = __agentLazySchema(() => (z.object({ v: z.literal(VERSION) })));'));
  assert.ok(contents.includes('const B = __agentLazySchema(() => (A.extend({ w: z.string() })));'));
  assert.ok(contents.includes('const C = helper(1);'), 'a call without a schema in it stays');
  assert.ok(contents.includes('function f() { const D = z.string(); return D; }'), 'nothing inside other functions changes');
  assert.ok(contents.startsWith('import { lazySchema as __agentLazySchema, lazyCollection as __agentLazyCollection }'));
});

test('lazy schemas :: inside an era builder every schema waits for its first use', async () => {
  const { wrapSchemas } = (await import(plugin)) as Wrap;
  const source = [
    'function build$1() {',
    '  const A = z.string();',
    '  const wire = (s) => z.object({ r: s });',
    '  const B = wire(A);',
    '  const shape = { x: z.number(), y: A.optional() };',
    '  const S = z.object(shape);',
    '  const K = S.shape;',
    '  const N = 3;',
    '  return { A, B, S, K, N, W: wire(S) };',
    '}',
    'function other() { const D = z.string(); return D; }',
    'return { build: build$1, other };',
  ].join('\n');
  const { contents, count } = wrapSchemas(source, 'dialects.mjs');
  // A, B, the two shape properties, S, K and W; not the arrow, the number or the other function.
  assert.is(count, 7);
  assert.ok(contents.includes('function other() { const D = z.string(); return D; }'));
  const schemaCount = counting(lazySchema);
  const module = runTransformed(contents, schemaCount.wrap, lazyCollection) as { build: () => Record<string, z.ZodType & { shape?: unknown }> };
  const schemas = module.build();
  const built = schemaCount.built;
  assert.is(built(), 0, 'the builder ran and built nothing');
  assert.is(schemas.N, 3 as unknown);
  assert.equal(schemas.W!.parse({ r: { x: 1, y: 'a' } }), { r: { x: 1, y: 'a' } });
  assert.not.ok(schemas.W!.safeParse({ r: { x: 'no' } }).success);
  assert.is(built(), 5, 'W, S, the two shape properties and A (through y): not B or K');
  assert.equal(Object.keys(schemas.K as object), ['x', 'y'], 'a shape reads through');
  assert.equal(schemas.B!.parse({ r: 'b' }), { r: 'b' });
});

test('lazy collections :: a Set derived from schemas at load is built on first use and works as a Set', async () => {
  const { wrapSchemas } = (await import(plugin)) as Wrap;
  const source = [
    'const ItemSchema = z.object({ a: z.string(), b: z.number() });',
    'const KEYS = new Set(Object.keys(ItemSchema.shape));',
    'const BY_TYPE = { item: keysOf([ItemSchema]), plain: keysOf([]), n: 1 };',
    'const OTHER = new Set(["x"]);',
    'function keysOf(schemas) { return new Set(schemas.flatMap((s) => Object.keys(s.shape))); }',
    'return { KEYS, BY_TYPE, OTHER };',
  ].join('\n');
  const { contents, count } = wrapSchemas(source, 'walker.mjs');
  assert.is(count, 3, 'the schema, the Set of its keys and the one property that uses a schema');
  assert.ok(contents.includes('const OTHER = new Set(["x"]);'), 'a collection without schemas stays');
  assert.ok(contents.includes('plain: keysOf([])'));
  const collectionCount = counting(lazyCollection);
  const loaded = runTransformed(contents, lazySchema, collectionCount.wrap) as { KEYS: Set<string>; BY_TYPE: Record<string, Set<string>> };
  const built = collectionCount.built;
  assert.is(built(), 0, 'nothing built as the module loads');
  assert.ok(loaded.KEYS.has('a'));
  assert.not.ok(loaded.KEYS.has('c'));
  assert.is(loaded.KEYS.size, 2);
  assert.equal([...loaded.KEYS], ['a', 'b']);
  assert.ok(loaded.KEYS instanceof Set);
  assert.is(built(), 1);
  assert.ok(Object.hasOwn(loaded.BY_TYPE, 'item'));
  assert.ok(loaded.BY_TYPE.item!.has('b'));
  assert.is(built(), 2);
});

test.run();
