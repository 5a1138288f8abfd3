// dotenv.parse() skips lines it cannot read; a Runtime Scope update with such a line is rejected
// instead (service.md: a malformed `.env` update keeps the last working environment).
import type { ConfigProblem } from './errors.ts';

const ASSIGNMENT = /^(\s*(?:export\s+)?)([^=]*?)\s*=(.*)$/;
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// A malformed line is quoted only up to its first word, which cannot be half of a secret value.
const FIRST_WORD = /^(\s*(?:export\s+)?)([^\s=:]{1,40})/;

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
      const word = FIRST_WORD.exec(line);
      const column = (word ? word[1]!.length : line.length - line.trimStart().length) + 1;
      return { line: i + 1, column, expected: 'a KEY=value line or a # comment', found: `${JSON.stringify(word?.[2] ?? trimmed.slice(0, 40))} with no "=" after it` };
    }
    const [, lead, key, rest] = match as unknown as [string, string, string, string];
    if (!KEY.test(key)) {
      return {
        line: i + 1,
        column: lead.length + 1,
        expected: 'a KEY=value line whose KEY is letters, digits, _, . or - and does not start with a digit',
        found: key ? `the key ${JSON.stringify(key.slice(0, 40))}` : 'nothing before the "="',
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
