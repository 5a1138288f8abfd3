import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type DotenvProblem, findMalformedDotenvLine } from '../../lib/config/dotenv-check.ts';
import { formatProblem } from '../../lib/config/errors.ts';
import { readRuntimeScope } from '../../lib/config/load.ts';

const KEY_LINE = 'a KEY=value line or a # comment';
const KEY_NAME = 'a KEY=value line whose KEY is letters, digits, _, . or - and does not start with a digit';

const cases: [string, string, DotenvProblem | null][] = [
  ['empty file', '', null],
  ['assignments and comments', '# note\nA=1\n\nexport B = two\nC.D-E="x y"\n', null],
  ['empty value', 'A=\n', null],
  ['multi-line double-quoted value', 'KEY="line one\nline two"\nNEXT=1\n', null],
  ['a bare word', 'A=1\nnonsense\n', { line: 2, column: 1, expected: KEY_LINE, found: 'a line of 8 characters with no "="' }],
  ['a missing equals sign after export', 'export KEY\n', { line: 1, column: 8, expected: KEY_LINE, found: 'a line of 3 characters with no "="' }],
  ['a key and value without "=": not even the key is quoted', '  API_TOKEN: s3cr3t-value\n', { line: 1, column: 3, expected: KEY_LINE, found: 'a line of 23 characters with no "="' }],
  ['one character', 'x\n', { line: 1, column: 1, expected: KEY_LINE, found: 'a line of 1 character with no "="' }],
  // The tester's case: a private key pasted without quotes; its text is never shown.
  ['a pasted private key line', 'A=1\nB=2\nC=3\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n', { line: 4, column: 1, expected: KEY_LINE, found: 'a line of 52 characters with no "="' }],
  ['the last line of a pasted key, "=" padding and all', 'vQIBADANBgkqhkiG9w0+BAQEFAASCBKcw==\n', { line: 1, column: 20, expected: KEY_NAME, found: '"+" in a key of 33 characters' }],
  ['a key starting with a digit', 'A=1\n  1A=1\n', { line: 2, column: 3, expected: KEY_NAME, found: 'a key of 2 characters starting with a digit' }],
  ['a key with a space', 'MY KEY=1\n', { line: 1, column: 3, expected: KEY_NAME, found: 'a space in a key of 6 characters' }],
  ['nothing before "="', '=value\n', { line: 1, column: 1, expected: KEY_NAME, found: 'nothing before the "="' }],
  [
    'an unterminated double quote',
    'A="open\nB=2\n',
    { line: 3, column: 1, expected: 'a closing " for the value of A (opened at line 1, column 3)', found: 'the end of the file' },
  ],
  [
    'an unterminated single quote without a final newline',
    'X=1\nexport SECRET = \'abc',
    { line: 2, column: 21, expected: "a closing ' for the value of SECRET (opened at line 2, column 17)", found: 'the end of the file' },
  ],
  ['CRLF line ends', 'A=1\r\nB=2\r\n', null],
];
for (const [name, text, expected] of cases) {
  test(`dotenv-check :: ${name}`, () => assert.equal(findMalformedDotenvLine(text), expected));
}

// The messages as the operator reads them: `<file>:<line>:<col>: expected <what>, found <what>`.
const messages: [string, string, string][] = [
  ['a bare word', 'A=1\nnonsense\n', ':2:1: expected a KEY=value line or a # comment, found a line of 8 characters with no "="'],
  ['a bad key', '1A=x\n', ':1:1: expected a KEY=value line whose KEY is letters, digits, _, . or - and does not start with a digit, found a key of 2 characters starting with a digit'],
  ['an unterminated quote', 'A=1\nB="open\nmore\n', ':4:1: expected a closing " for the value of B (opened at line 2, column 3), found the end of the file'],
];
for (const [name, text, tail] of messages) {
  test(`dotenv-check :: message for ${name}`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-dotenv-'));
    try {
      fs.writeFileSync(path.join(dir, '.env'), text);
      const scope = await readRuntimeScope(path.join(dir, 'mcp.json'));
      assert.ok(!scope.ok);
      if (!scope.ok) assert.is(formatProblem(scope.problem), `${path.join(dir, '.env')}${tail}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
test.run();
