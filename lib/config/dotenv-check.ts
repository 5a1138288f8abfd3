// dotenv.parse() skips lines it cannot read; a Runtime Scope update with such a line is rejected
// instead (service.md: a malformed `.env` update keeps the last working environment).
import { plural } from '../shared/plural.ts';
import type { ConfigProblem } from './errors.ts';

const ASSIGNMENT = /^(\s*(?:export\s+)?)([^=]*?)\s*=(.*)$/;
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const LEAD = /^\s*(?:export\s+)?/;

// What a malformed line holds is never quoted: a private key pasted without quotes is a line of
// base64 with no "=" (or one whose "=" padding makes the text before it look like a key).
const characters = (n: number) => plural(n, 'character');

/** The first character of `key` a KEY cannot have, described without the rest of the key. */
function badKeyCharacter(key: string): { index: number; found: string } {
  if (/^[0-9]/.test(key)) return { index: 0, found: `a key of ${characters(key.length)} starting with a digit` };
  const index = key.search(/[^A-Za-z0-9_.-]/);
  const char = key[index]!;
  const what = char === ' ' ? 'a space' : char === '\t' ? 'a tab' : JSON.stringify(char);
  return { index, found: `${what} in a key of ${characters(key.length)}` };
}

export type DotenvProblem = Required<Pick<ConfigProblem, 'line' | 'column' | 'expected' | 'found'>>;

/** The first malformed line of a `.env` (1-based line and column), or null when every line is an assignment or a comment. */
export function findMalformedDotenvLine(text: string): DotenvProblem | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let open: { quote: string; key: string; line: number; column: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open) {
      // Inside a multi-line quoted value: wait for the closing quote.
      if (line.includes(open.quote)) open = null;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      const lead = LEAD.exec(line)![0].length;
      return { line: i + 1, column: lead + 1, expected: 'a KEY=value line or a # comment', found: `a line of ${characters(line.trimEnd().length - lead)} with no "="` };
    }
    const [, lead, key, rest] = match as unknown as [string, string, string, string];
    if (!KEY.test(key)) {
      const bad = key ? badKeyCharacter(key) : { index: 0, found: 'nothing before the "="' };
      return {
        line: i + 1,
        column: lead.length + bad.index + 1,
        expected: 'a KEY=value line whose KEY is letters, digits, _, . or - and does not start with a digit',
        found: bad.found,
      };
    }
    const value = rest.trimStart();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.indexOf(quote, 1) === -1) {
      open = { quote, key, line: i + 1, column: line.length - value.length + 1 };
    }
  }
  if (!open) return null;
  return {
    line: lines.length,
    column: lines[lines.length - 1]!.length + 1,
    expected: `a closing ${open.quote} for the value of ${open.key} (opened at line ${open.line}, column ${open.column})`,
    found: 'the end of the file',
  };
}
