import { getLocation, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { type ConfigProblem, isSecretPath } from './errors.ts';
import { findTooDeep, MAX_CONFIG_NESTING } from './json-depth.ts';

// Strict JSON parse that reports the first syntax error with line and column; a text nested too
// deep for the parser's recursion is refused before it reads it (json-depth.ts).
export function parseJsonStrict(text: string, file: string): { ok: true; value: unknown } | { ok: false; problem: ConfigProblem } {
  const deep = findTooDeep(text);
  if (deep !== null) {
    return {
      ok: false,
      problem: { file, path: '', ...lineAndColumn(text, deep), expected: `objects and arrays nested at most ${MAX_CONFIG_NESTING} levels deep (a configuration needs about 6)`, found: `a bracket opening level ${MAX_CONFIG_NESTING + 1}` },
    };
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return { ok: true, value };
  const { line, column } = lineAndColumn(text, first.offset);
  const reason = printParseErrorCode(first.error);
  // An unquoted value under a secret's key (`"API_KEY": abc123`) is the secret: not echoed; nor is
  // what is found inside an env, args or headers value (`"--token" "abc"`, `"KEY=abc`).
  const where = first.offset >= text.length ? [] : getLocation(text, first.offset).path;
  const holder = where.find((segment) => segment === 'env' || segment === 'args' || segment === 'headers');
  const found =
    first.offset >= text.length
      ? 'the end of the file'
      : isSecretPath(where)
        ? 'a value under a secret\'s key (not shown)'
        : holder !== undefined
          ? `text inside "${String(holder)}" (not shown: it may hold a secret)`
        : `${JSON.stringify(text.slice(first.offset, first.offset + Math.max(1, Math.min(first.length, 20))))}`;
  return { ok: false, problem: { file, path: '', line, column, expected: `valid JSON (${reason})`, found } };
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
