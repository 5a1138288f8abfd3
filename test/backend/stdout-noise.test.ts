// The report of stray stdout lines: one with an excerpt, masked before it is cut; the rest counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type NoiseLine, StdoutNoise } from '../../lib/backend/stdout-noise.ts';
import { maskSecretValues } from '../../lib/shared/secret-values.ts';

const SECRET = 'Zq7hunter2Secret9xYwPlK';

function noise() {
  const lines: NoiseLine[] = [];
  const n = new StdoutNoise((line) => lines.push(line), (text, cut) => maskSecretValues(text, [SECRET], cut), () => 1_000);
  return { n, lines };
}

test('stdout noise :: one line is told with an excerpt of at most 200 characters; blank lines are not told', () => {
  const t = noise();
  t.n.seen(Buffer.from(''));
  t.n.seen(Buffer.from(' \r'));
  assert.is(t.lines.length, 0);
  t.n.seen(Buffer.from(`hello ${'x'.repeat(500)}`));
  assert.is(t.lines.length, 1);
  assert.is(t.lines[0]!.fields.excerpt, `hello ${'x'.repeat(194)}`);
  t.n.flush();
});

test('stdout noise :: a secret across the 200th character is masked before the cut: no part of it shows', () => {
  for (const at of [190, 195, 199]) {
    const t = noise();
    t.n.seen(Buffer.from(`${'.'.repeat(at)}${SECRET} and more`));
    const excerpt = String(t.lines[0]!.fields.excerpt);
    assert.not.ok(excerpt.includes(SECRET.slice(0, 3)), `secret at ${at}: ${excerpt.slice(-30)}`);
  }
});

test('stdout noise :: a secret that starts before the decoded bytes end is masked too', () => {
  const t = noise();
  t.n.seen(Buffer.from(`${'.'.repeat(2_040)}${SECRET}`));
  assert.not.ok(JSON.stringify(t.lines).includes(SECRET.slice(0, 6)));
});

test('stdout noise :: the excerpt does not end in half a surrogate pair', () => {
  const t = noise();
  t.n.seen(Buffer.from(`${'a'.repeat(199)}😀 tail`));
  const excerpt = String(t.lines[0]!.fields.excerpt);
  assert.is(excerpt, 'a'.repeat(199));
});

test('stdout noise :: later lines are counted and summed up once', () => {
  const t = noise();
  for (let i = 0; i < 5; i++) t.n.seen(Buffer.from(`line ${i}`));
  assert.is(t.lines.length, 1);
  t.n.flush();
  assert.equal(t.lines[1], { fields: { stream: 'stdout', ignored: 4 }, message: '4 more line(s) on stdout that are not JSON-RPC messages were ignored' });
});

test.run();
