import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineSplitter, MAX_LINE_BYTES } from '../../lib/backend/line-splitter.ts';

type Line = [text: string, truncated: boolean];

// Chunks in, lines out (after a final flush), with the cut at `maxBytes`.
function run(maxBytes: number | undefined, chunks: string[], expected: Line[]): void {
  const lines: Line[] = [];
  const splitter = new LineSplitter((text, truncated) => lines.push([text, truncated]), maxBytes);
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.flush();
  assert.equal(lines, expected);
}

const cases: Array<[title: string, maxBytes: number | undefined, chunks: string[], expected: Line[]]> = [
  ['lines and a last line without a newline', undefined, ['a\nbb\r\n', 'c'], [['a', false], ['bb', false], ['c', false]]],
  ['a line split over chunks', undefined, ['ab', 'c\n'], [['abc', false]]],
  ['the default cut is 8 KiB', undefined, [`${'x'.repeat(MAX_LINE_BYTES + 5)}\nshort\n`], [['x'.repeat(MAX_LINE_BYTES), true], ['short', false]]],
  ['maxBytes 4 cuts longer lines and marks them', 4, ['abcdefgh\nabcd\nab\n'], [['abcd', true], ['abcd', false], ['ab', false]]],
  ['maxBytes 4 over chunks', 4, ['ab', 'cd', 'ef\n', 'g\n'], [['abcd', true], ['g', false]]],
  ['maxBytes 64 KiB keeps a 20 KiB line whole', 64 * 1024, [`${'y'.repeat(20 * 1024)}\n`], [['y'.repeat(20 * 1024), false]]],
];

for (const [title, maxBytes, chunks, expected] of cases) {
  test(`line-splitter :: ${title}`, () => run(maxBytes, chunks, expected));
}

test('line-splitter :: a new maxBytes applies from the line under way; one already longer is cut where it stands', () => {
  const lines: Line[] = [];
  const splitter = new LineSplitter((text, truncated) => lines.push([text, truncated]), 8);
  splitter.push(Buffer.from('abcdef'));
  splitter.maxBytes = 4;
  splitter.push(Buffer.from('gh\nabcdefgh\n'));
  splitter.maxBytes = 16;
  splitter.push(Buffer.from('abcdefghij\n'));
  assert.equal(lines, [['abcdef', true], ['abcd', true], ['abcdefghij', false]]);
});

test.run();
