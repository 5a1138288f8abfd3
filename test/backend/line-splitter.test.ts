import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type LineCounter, LineSplitter, MAX_LINE_BYTES } from '../../lib/backend/line-splitter.ts';

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
  // The cut falls before a character it would split: no U+FFFD.
  ['a cut through 2-byte characters', 5, ['ééééé\n'], [['éé', true]]],
  ['a cut through a 4-byte character', 5, ['ab😀cd\nabcd😀\n'], [['ab', true], ['abcd', true]]],
  ['a cut at a character boundary keeps it', 4, ['éé€\n'], [['éé', true]]],
  ['a character split over reads, then cut', 5, ['abcd', Buffer.from('é').subarray(0, 1).toString('latin1')], [['abcd', true]]],
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

// Counting: while the consumer only counts lines, a read's lines are counted, not decoded, but for
// the one completing the pending bytes and the read's last non-empty one.
function runCounting(maxBytes: number | undefined, chunks: [text: string, counting: boolean][]) {
  const lines: Line[] = [];
  let counted = 0;
  let repeated = 0;
  let counting = false;
  const counter: LineCounter = { countsOnly: () => counting, count: (n) => void (counted += n), repeat: (n) => void (repeated += n) };
  const splitter = new LineSplitter((text, truncated) => lines.push([text, truncated]), maxBytes, counter);
  for (const [text, on] of chunks) {
    counting = on;
    splitter.push(Buffer.from(text));
  }
  splitter.flush();
  return { lines, counted, repeated };
}

const countingCases: Array<[title: string, maxBytes: number | undefined, chunks: [string, boolean][], lines: Line[], counted: number]> = [
  ['the middle lines are counted, the last non-empty one decoded', undefined, [['a\nb\nc\n', true]], [['c', false]], 2],
  ['empty lines and a lone \\r are neither counted nor decoded', undefined, [['a\n\nb\r\n\r\n\n', true]], [['b', false]], 1],
  ['the line completing the pending bytes is decoded', undefined, [['xy', false], ['z\nq\nw\n', true]], [['xyz', false], ['w', false]], 1],
  ['a read without a newline only adds to the pending line', undefined, [['ab', true], ['cd', true], ['\n', false]], [['abcd', false]], 0],
  ['the rest after the last newline stays pending', undefined, [['a\nb\nrest', true], ['\n', false]], [['b', false], ['rest', false]], 1],
  ['the decoded last line is cut at maxBytes', 4, [['abcdefgh\nabcdefgh\n', true]], [['abcd', true]], 1],
  ['a pending line already cut stays cut', 4, [['abcdef', false], ['gh\nx\n', true]], [['abcd', true], ['x', false]], 0],
  ['a line cut down to a lone \\r is empty', 1, [['a\n\rx\nb\n', true]], [['b', false]], 1],
];

for (const [title, maxBytes, chunks, lines, counted] of countingCases) {
  test(`line-splitter :: counting: ${title}`, () => assert.equal(runCounting(maxBytes, chunks), { lines, counted, repeated: 0 }));
}

test('line-splitter :: counting: when the completing line ends the counting state, the rest of the read is decoded', () => {
  const lines: Line[] = [];
  let counted = 0;
  const answers = [false, true, false]; // read 1, read 2, and after read 2's completing line
  const counter: LineCounter = { countsOnly: () => answers.shift() ?? false, count: (n) => void (counted += n), repeat: () => undefined };
  const splitter = new LineSplitter((text, truncated) => lines.push([text, truncated]), undefined, counter);
  splitter.push(Buffer.from('xy'));
  splitter.push(Buffer.from('z\na\nb\n'));
  assert.equal({ lines, counted }, { lines: [['xyz', false], ['a', false], ['b', false]], counted: 0 });
});

// Repeats: with a counter, a line equal byte for byte to the previous one passed on is reported
// as a repeat, not decoded.
const repeatCases: Array<[title: string, maxBytes: number | undefined, chunks: string[], lines: Line[], repeated: number]> = [
  ['runs of one line', undefined, ['a\na\na\nb\nb\n'], [['a', false], ['b', false]], 3],
  ['a run over reads', undefined, ['a\na\n', 'a\n'], [['a', false]], 2],
  ['CRLF and LF copies of one line', undefined, ['a\r\na\na\r\n'], [['a', false]], 2],
  ['empty lines between copies (passed on, for the consumer to skip)', undefined, ['a\n\n\r\na\n'], [['a', false], ['', false], ['', false]], 1],
  ['a line completing pending bytes is decoded, then compared', undefined, ['a\nxa', '\nxa\n'], [['a', false], ['xa', false]], 1],
  ['lines cut alike are copies; a line that fits is not', 4, ['abcdef\nabcdxy\nabcd\n'], [['abcd', true], ['abcd', false]], 1],
  ['a prefix is not a copy', undefined, ['abc\nab\nabc\n'], [['abc', false], ['ab', false], ['abc', false]], 0],
];

for (const [title, maxBytes, chunks, lines, repeated] of repeatCases) {
  test(`line-splitter :: repeats: ${title}`, () => assert.equal(runCounting(maxBytes, chunks.map((c) => [c, false])), { lines, counted: 0, repeated }));
}

test.run();
