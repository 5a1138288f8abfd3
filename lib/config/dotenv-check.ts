// dotenv.parse() skips lines it cannot read; a Runtime Scope update with such a line is rejected
// instead (service.md: a malformed `.env` update keeps the last working environment).

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=(.*)$/;

/** The first malformed line (1-based) and why, or null when every line is an assignment or a comment. */
export function findMalformedDotenvLine(text: string): { line: number; reason: string } | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let openQuote: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (openQuote) {
      // Inside a multi-line quoted value: wait for the closing quote.
      if (line.includes(openQuote)) openQuote = null;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match) return { line: i + 1, reason: 'expected KEY=value or a # comment' };
    const value = match[1]!.trimStart();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.indexOf(quote, 1) === -1) openQuote = quote;
  }
  return openQuote ? { line: lines.length, reason: `unterminated ${openQuote}-quoted value` } : null;
}
