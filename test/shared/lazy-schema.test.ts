import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { lazySchema } from '../../lib/shared/lazy-schema.ts';

type Wrap = { wrapSchemas: (source: string, file: string) => { contents: string; count: number } };
const plugin = '../../scripts/lazy-schemas.mjs';

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
  assert.ok(contents.includes('function f() { const D = z.string(); return D; }'), 'nothing inside functions changes');
  assert.ok(contents.startsWith('import { lazySchema as __agentLazySchema }'));
});

test.run();
