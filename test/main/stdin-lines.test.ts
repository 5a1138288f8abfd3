// stdio mode's stdin cut at line ends on the main thread: whole lines go to a hub, the start of
// a line waits for its end, a line over the limit passes as it comes; what a hub that died had
// not read goes to the next one once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type StdinPiece, StdinLines, UnreadPieces } from '../../lib/main/stdin-lines.ts';

const show = (pieces: StdinPiece[]) => pieces.map((p) => [p.bytes.toString(), p.whole]);
const b = (text: string) => Buffer.from(text);

test('stdin lines :: whole lines pass at once, in one piece per read', () => {
  const lines = new StdinLines(100);
  assert.equal(show(lines.push(b('a\nb\n'))), [['a\nb\n', true]]);
  assert.equal(lines.end(), null, 'nothing held');
});

test('stdin lines :: the start of a line waits for its end, across reads', () => {
  const lines = new StdinLines(100);
  assert.equal(show(lines.push(b('{"id":'))), []);
  assert.equal(show(lines.push(b('1}'))), []);
  assert.equal(show(lines.push(b('\n{"id":2'))), [['{"id":1}\n', true]]);
  assert.equal(show(lines.push(b('}\nc\nd'))), [['{"id":2}\nc\n', true]]);
  assert.equal(show([lines.end()!]), [['d', true]], 'the last line without its newline, at the end');
});

test('stdin lines :: a line over the limit passes as it comes, marked not whole, up to its end; the next lines are whole again', () => {
  const lines = new StdinLines(4);
  assert.equal(show(lines.push(b('abc'))), []);
  assert.equal(show(lines.push(b('defg'))), [['abcdefg', false]]);
  assert.equal(show(lines.push(b('hij'))), [['hij', false]]);
  assert.equal(show(lines.push(b('k\nok\npart'))), [['k\n', false], ['ok\n', true]]);
  assert.equal(show([lines.end()!]), [['part', true]]);
});

test('stdin lines :: the hub that had the start of a long line died: the rest of that line goes nowhere, its bytes counted', () => {
  const skipped: number[] = [];
  const lines = new StdinLines(4, (bytes) => void skipped.push(bytes));
  assert.equal(show(lines.push(b('0123456'))), [['0123456', false]]);
  lines.longLineLost();
  assert.equal(show(lines.push(b('789'))), []);
  assert.equal(show(lines.push(b('end\nnext\n'))), [['next\n', true]]);
  assert.equal(skipped, [7], 'once, at the end of the line');
});

test('stdin lines :: a long line lost after it ended changes nothing', () => {
  const lines = new StdinLines(4);
  assert.equal(show(lines.push(b('0123456\n'))), [['0123456\n', true]]);
  lines.longLineLost();
  assert.equal(show(lines.push(b('a\n'))), [['a\n', true]]);
});

test('unread pieces :: pieces read are let go in order; the rest goes to the next hub once, then is dropped', () => {
  const unread = new UnreadPieces();
  const piece = (text: string, whole = true): StdinPiece => ({ bytes: b(text), whole, resent: false });
  unread.sent(piece('a\n'));
  unread.sent(piece('bb\n'));
  unread.sent(piece('long', false));
  unread.sent(piece('c\n'));
  unread.read(2);
  const first = unread.takeForNextHub();
  assert.equal(first.again.map((p) => [p.bytes.toString(), p.resent]), [['bb\n', true], ['c\n', true]]);
  assert.is(first.dropped, 4, 'part of a long line is never sent twice');
  for (const p of first.again) unread.sent(p);
  unread.sent(piece('d\n'));
  const second = unread.takeForNextHub();
  assert.equal(second.again.map((p) => p.bytes.toString()), ['d\n'], 'what two hubs in a row died with is dropped');
  assert.is(second.dropped, 5);
  assert.equal(unread.takeForNextHub(), { again: [], dropped: 0 });
});

test('unread pieces :: a piece read in part (not what a hub does) is never sent again: its rest starts mid-line', () => {
  const unread = new UnreadPieces();
  unread.sent({ bytes: b('abc\n'), whole: true, resent: false });
  unread.read(2);
  assert.equal(unread.takeForNextHub(), { again: [], dropped: 2 });
});

test("stdin lines :: a CRLF line one byte over the limit, its '\\r' included, is whole (the hub does not count the '\\r')", () => {
  const lines = new StdinLines(4);
  assert.equal(show(lines.push(b('abcd\r'))), [], 'held: five bytes, the last a CR');
  assert.equal(show(lines.push(b('\nx\n'))), [['abcd\r\nx\n', true]]);
  assert.equal(show(lines.push(b('abcde\r'))), [['abcde\r', false]], 'six bytes: long');
});

test.run();
