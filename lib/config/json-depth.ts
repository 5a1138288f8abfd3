// How deep a configuration text nests, found before any recursive parser reads it: jsonc-parser
// (the service's load, `agent mcp status`, `agent mcp tools disable`) and zod recurse once per
// level, and a file nested 100,000 levels ran their stack out ('Maximum call stack size
// exceeded', no file named, and the service retried it every few seconds for ever). Pure, linear,
// no recursion: brackets are counted outside strings.

/** Deeper than this, a configuration is refused; a real one nests about 6 levels (mcpServers.x.env.KEY). */
export const MAX_CONFIG_NESTING = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/** The offset of the `{` or `[` that opens level `limit + 1` (outside strings), or null when the text nests no deeper than `limit`. */
export function findTooDeep(text: string, limit: number = MAX_CONFIG_NESTING): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > limit) return i;
    } else if (CLOSERS.has(c) && depth > 0) depth--;
  }
  return null;
}
