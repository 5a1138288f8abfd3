// Per-session backend filters (decisions §9): `?tags=a,b` (any of them) or `?tag-filter=<expr>`
// with `and`, `or`, `not` and parentheses; precedence not > and > or; case-insensitive.
import { AgentError, Code } from './errors.ts';

export type TagExpr =
  | { kind: 'tag'; name: string }
  | { kind: 'not'; expr: TagExpr }
  | { kind: 'and' | 'or'; left: TagExpr; right: TagExpr };

/** A malformed tag filter (catalogue code `invalid_tag_filter`). */
export class TagFilterError extends AgentError {
  override readonly name: string = 'TagFilterError';
  constructor(
    message: string,
    /** 1-based character position in the expression; null for a mistake of the query as a whole. */
    readonly position: number | null,
  ) {
    super(Code.invalid_tag_filter, position === null ? message : `${message} at position ${position}`);
  }
}

type Token = { kind: 'tag' | 'and' | 'or' | 'not' | '(' | ')' | 'end'; text: string; position: number };

const TAG_CHAR = /[A-Za-z0-9_.:-]/;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c, text: c, position: i + 1 });
      i++;
    } else if (TAG_CHAR.test(c)) {
      const start = i;
      while (i < input.length && TAG_CHAR.test(input[i]!)) i++;
      const text = input.slice(start, i);
      const lower = text.toLowerCase();
      const kind = lower === 'and' || lower === 'or' || lower === 'not' ? lower : 'tag';
      tokens.push({ kind, text, position: start + 1 });
    } else {
      throw new TagFilterError(`unexpected character ${JSON.stringify(c)} (tags use letters, digits and _ . : -)`, i + 1);
    }
  }
  tokens.push({ kind: 'end', text: '', position: input.length + 1 });
  return tokens;
}

/** Parses a `tag-filter` expression; throws TagFilterError naming the problem and its position. */
export function parseTagFilter(input: string): TagExpr {
  const tokens = tokenize(input);
  let at = 0;
  const peek = () => tokens[at]!;
  const describe = (t: Token) => (t.kind === 'end' ? 'the end of the expression' : JSON.stringify(t.text));

  const primary = (): TagExpr => {
    const t = peek();
    if (t.kind === 'not') {
      at++;
      return { kind: 'not', expr: primary() };
    }
    if (t.kind === '(') {
      at++;
      const expr = or();
      const close = peek();
      if (close.kind !== ')') throw new TagFilterError(`expected ")" to close the "(" at position ${t.position}, found ${describe(close)}`, close.position);
      at++;
      return expr;
    }
    if (t.kind === 'tag') {
      at++;
      return { kind: 'tag', name: t.text.toLowerCase() };
    }
    throw new TagFilterError(`expected a tag, "not" or "(", found ${describe(t)}`, t.position);
  };
  const and = (): TagExpr => {
    let left = primary();
    while (peek().kind === 'and') {
      at++;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const or = (): TagExpr => {
    let left = and();
    while (peek().kind === 'or') {
      at++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };

  if (peek().kind === 'end') throw new TagFilterError('expected a tag expression, found nothing', 1);
  const expr = or();
  const rest = peek();
  if (rest.kind !== 'end') throw new TagFilterError(`expected "and", "or" or the end, found ${describe(rest)}`, rest.position);
  return expr;
}

export function matchesTags(expr: TagExpr, tags: readonly string[]): boolean {
  switch (expr.kind) {
    case 'tag':
      return tags.some((t) => t.toLowerCase() === expr.name);
    case 'not':
      return !matchesTags(expr.expr, tags);
    case 'and':
      return matchesTags(expr.left, tags) && matchesTags(expr.right, tags);
    case 'or':
      return matchesTags(expr.left, tags) || matchesTags(expr.right, tags);
  }
}

/** A session's filter: null = every backend is visible. */
export type BackendFilter = TagExpr | null;

/** Reads `tags` / `tag-filter` from a query string; throws TagFilterError for a bad request. */
export function filterFromQuery(query: URLSearchParams): BackendFilter {
  const tags = query.get('tags');
  const expression = query.get('tag-filter');
  if (tags !== null && expression !== null) throw new TagFilterError('use either "tags" or "tag-filter", not both', null);
  if (expression !== null) return parseTagFilter(expression);
  if (tags === null) return null;
  const names = tags.split(',').map((t) => t.trim());
  names.forEach((name, i) => {
    if (!/^[A-Za-z0-9_.:-]+$/.test(name)) {
      const position = names.slice(0, i).reduce((n, part) => n + part.length + 1, 1);
      throw new TagFilterError(`expected a tag of letters, digits and _ . : -, found ${JSON.stringify(name)} in "tags"`, position);
    }
  });
  return names.map((name): TagExpr => ({ kind: 'tag', name: name.toLowerCase() })).reduce((left, right) => ({ kind: 'or', left, right }));
}
