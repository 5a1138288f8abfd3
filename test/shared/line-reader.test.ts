import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOversized, jsonLine, LineReader, OVERSIZED_HEAD_BYTES, OVERSIZED_TAIL_BYTES, type ReadLine } from '../../lib/shared/line-reader.ts';

// Lines as text, oversized ones as `<oversized N>`.
function show(lines: ReadLine[]): string[] {
  return lines.map((line) => (isOversized(line) ? `<oversized ${line.bytes}>` : line.toString('utf8')));
}

function run(chunks: string[], maxBytes: number): string[] {
  const reader = new LineReader(maxBytes);
  return chunks.flatMap((chunk) => show(reader.push(Buffer.from(chunk))));
}

const cases: [string, string[], number, string[]][] = [
  ['one line', ['a\n'], 10, ['a']],
  ['several lines in one chunk', ['a\nbb\nccc\n'], 10, ['a', 'bb', 'ccc']],
  ['a line split across chunks', ['ab', 'c', 'd\ne', 'f\n'], 10, ['abcd', 'ef']],
  ['an unterminated line is held back', ['a\nb'], 10, ['a']],
  ['empty lines come out empty', ['\n\na\n'], 10, ['', '', 'a']],
  ['a carriage return stays (JSON ignores it)', ['a\r\n'], 10, ['a\r']],
  ['a line of exactly the limit is whole', ['0123456789\n'], 10, ['0123456789']],
  ['one byte over the limit is oversized', ['0123456789A\n'], 10, ['<oversized 11>']],
  ['the limit counts bytes, not characters', ['ééééé\n', 'éééééé\n'], 10, ['ééééé', '<oversized 12>']],
  ['over the limit across chunks, then a normal line', ['01234', '56789', 'AB\nok\n'], 10, ['<oversized 12>', 'ok']],
  ['an oversized line ending at a chunk boundary', ['0123456789AB', '\n', 'x\n'], 10, ['<oversized 12>', 'x']],
];

for (const [name, chunks, maxBytes, expected] of cases) {
  test(`line-reader :: ${name}`, () => {
    assert.equal(run(chunks, maxBytes), expected);
  });
}

test('line-reader :: an oversized line keeps its first 64 KiB and last 1 KiB', () => {
  const reader = new LineReader(100 * 1024);
  const line = Buffer.alloc(300 * 1024);
  for (let i = 0; i < line.length; i++) line[i] = 97 + (i % 26);
  const out: ReadLine[] = [];
  for (let at = 0; at < line.length; at += 7_000) out.push(...reader.push(line.subarray(at, at + 7_000)));
  out.push(...reader.push(Buffer.from('\nnext\n')));
  assert.is(out.length, 2);
  const [skipped, next] = out;
  assert.ok(skipped && isOversized(skipped));
  assert.is(skipped.bytes, line.length);
  assert.ok(skipped.head.equals(line.subarray(0, OVERSIZED_HEAD_BYTES)));
  assert.ok(skipped.tail.equals(line.subarray(line.length - OVERSIZED_TAIL_BYTES)));
  assert.is(show([next!])[0], 'next');
});

test('line-reader :: head and tail are whole even when the limit is smaller and bytes trickle in', () => {
  const reader = new LineReader(16);
  const line = Buffer.from(Array.from({ length: 70_000 }, (_, i) => String.fromCharCode(65 + (i % 26))).join(''));
  const out: ReadLine[] = [];
  for (let at = 0; at < line.length; at += 3) out.push(...reader.push(line.subarray(at, at + 3)));
  out.push(...reader.push(Buffer.from('\n')));
  const [skipped] = out;
  assert.ok(skipped && isOversized(skipped));
  assert.is(skipped.bytes, 70_000);
  assert.ok(skipped.head.equals(line.subarray(0, OVERSIZED_HEAD_BYTES)));
  assert.ok(skipped.tail.equals(line.subarray(70_000 - OVERSIZED_TAIL_BYTES)));
});

test('line-reader :: a short oversized line has a short head and tail', () => {
  const [skipped] = new LineReader(4).push(Buffer.from('abcdefgh\n'));
  assert.ok(skipped && isOversized(skipped));
  assert.is(skipped.head.toString(), 'abcdefgh');
  assert.is(skipped.tail.toString(), 'abcdefgh');
});

test('line-reader :: what it keeps of an oversized line does not alias the chunks', () => {
  const reader = new LineReader(8);
  const chunk = Buffer.from('0123456789abcdef');
  reader.push(chunk);
  chunk.fill(0);
  const [skipped] = reader.push(Buffer.from('\n'));
  assert.ok(skipped && isOversized(skipped));
  assert.is(skipped.head.toString(), '0123456789abcdef');
  assert.is(skipped.tail.toString(), '0123456789abcdef');
});

test('line-reader :: partialBytes counts the line under way, also past the limit', () => {
  const reader = new LineReader(4);
  assert.is(reader.partialBytes, 0);
  assert.equal(reader.push(Buffer.from('ab\ncd')).map(String), ['ab']);
  assert.is(reader.partialBytes, 2);
  reader.push(Buffer.from('efgh'));
  assert.is(reader.partialBytes, 6);
  assert.is(reader.push(Buffer.from('\n')).length, 1);
  assert.is(reader.partialBytes, 0);
});

test('line-reader :: end() gives the unterminated last line once, or null', () => {
  const reader = new LineReader(16);
  assert.is(reader.end(), null);
  reader.push(Buffer.from('{"id":1}\n{"id":2}'));
  assert.is(String(reader.end()), '{"id":2}');
  assert.is(reader.end(), null);
  const long = new LineReader(2);
  long.push(Buffer.from('abc'));
  const last = long.end();
  assert.ok(last && isOversized(last) && last.bytes === 3);
});

test('line-reader :: jsonLine writes one value and a newline, and reads back', () => {
  const text = jsonLine({ a: 'x\ny', b: [1] });
  assert.is(text, '{"a":"x\\ny","b":[1]}\n');
  const [line] = new LineReader(1024).push(Buffer.from(text));
  assert.equal(JSON.parse(String(line)), { a: 'x\ny', b: [1] });
});

test("line-reader :: a CRLF line is measured without its '\\r': at the limit it is whole, one byte over it is oversized, counted without the '\\r'", () => {
  const reader = new LineReader(5);
  const lines = reader.push(Buffer.from('abcde\r\nabcdef\r\nabcdef\n'));
  assert.is((lines[0] as Buffer).toString(), 'abcde\r', 'five bytes and the CR: whole');
  assert.ok(isOversized(lines[1]!) && lines[1].bytes === 6, 'six bytes and the CR: over, six counted');
  assert.ok(isOversized(lines[2]!) && lines[2].bytes === 6, 'six bytes, no CR: over');
  const end = new LineReader(3);
  end.push(Buffer.from('abc\r'));
  assert.is((end.end() as Buffer).toString(), 'abc\r', 'the last line at EOF too');
});

test("line-reader :: overLimit: the line under way is over the limit whatever its end; one byte more may still be a CRLF's '\\r'", () => {
  const reader = new LineReader(3);
  reader.push(Buffer.from('abcd'));
  assert.is(reader.overLimit, false, 'four bytes: a fourth may be the CR');
  reader.push(Buffer.from('e'));
  assert.is(reader.overLimit, true);
  reader.push(Buffer.from('\n'));
  assert.is(reader.overLimit, false, 'a new line');
});

test.run();
