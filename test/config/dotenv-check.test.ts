import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findMalformedDotenvLine } from '../../lib/config/dotenv-check.ts';

const cases: [string, string, { line: number; reason: string } | null][] = [
  ['empty file', '', null],
  ['assignments and comments', '# note\nA=1\n\nexport B = two\nC.D-E="x y"\n', null],
  ['empty value', 'A=\n', null],
  ['multi-line double-quoted value', 'KEY="line one\nline two"\nNEXT=1\n', null],
  ['a bare word', 'A=1\nnonsense\n', { line: 2, reason: 'expected KEY=value or a # comment' }],
  ['a key starting with a digit', '1A=1\n', { line: 1, reason: 'expected KEY=value or a # comment' }],
  ['a missing equals sign', 'export KEY\n', { line: 1, reason: 'expected KEY=value or a # comment' }],
  ['an unterminated quote', 'A="open\nB=2\n', { line: 3, reason: 'unterminated "-quoted value' }],
  ['CRLF line ends', 'A=1\r\nB=2\r\n', null],
];
for (const [name, text, expected] of cases) {
  test(`dotenv-check :: ${name}`, () => assert.equal(findMalformedDotenvLine(text), expected));
}
test.run();
