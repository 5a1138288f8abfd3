// The report of stray stdout lines: the first with an excerpt, the rest summed up once per window.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NOISE_WINDOW_MS, type NoiseLine, StdoutNoise } from '../../lib/backend/stdout-noise.ts';

function noise() {
  const lines: NoiseLine[] = [];
  let now = 1_000;
  const n = new StdoutNoise((line) => lines.push(line), (text) => text.replaceAll('hunter2', '***'), () => now);
  return { n, lines, advance: (ms: number) => (now += ms) };
}

test('stdout noise :: the first line is told with a masked excerpt of at most 200 characters; blank lines are not told', () => {
  const t = noise();
  t.n.seen(Buffer.from(''));
  t.n.seen(Buffer.from(' \r'));
  assert.is(t.lines.length, 0);
  t.n.seen(Buffer.from(`password hunter2 ${'x'.repeat(500)}`));
  assert.is(t.lines.length, 1);
  assert.is(t.lines[0]!.fields.excerpt, `password *** ${'x'.repeat(200 - 'password hunter2 '.length)}`);
  t.n.flush();
});

test('stdout noise :: later lines are counted and summed up once, at the flush', () => {
  const t = noise();
  for (let i = 0; i < 5; i++) t.n.seen(Buffer.from(`line ${i}`));
  assert.is(t.lines.length, 1);
  t.n.flush();
  assert.equal(t.lines[1], { fields: { stream: 'stdout', ignored: 4 }, message: '4 more line(s) on stdout that are not JSON-RPC messages were ignored' });
  t.n.flush();
  assert.is(t.lines.length, 2, 'nothing more to say');
});

test('stdout noise :: the summary comes by itself at the end of the window', async () => {
  const t = noise();
  t.n.seen(Buffer.from('first'));
  t.advance(NOISE_WINDOW_MS - 20);
  t.n.seen(Buffer.from('second'));
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.is(t.lines.length, 2);
  assert.is(t.lines[1]!.fields.ignored, 1);
});

test.run();
