// The nesting check that runs before any recursive parser reads a configuration text: brackets
// counted outside strings, the offset of the one that opens the level past the limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../lib/config/errors.ts';
import { findTooDeep, MAX_CONFIG_NESTING } from '../../lib/config/json-depth.ts';
import { parseJsonStrict } from '../../lib/config/parse-json.ts';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

const cases: [title: string, text: string, limit: number, expected: number | null][] = [
  ['empty text', '', 3, null],
  ['a flat object', '{"a": 1, "b": [1, 2]}', 3, null],
  ['exactly the limit', nested(3), 3, null],
  ['one past the limit: the opening bracket of that level', nested(4), 3, 3],
  ['objects and arrays count alike', '{"a": [{"b": [1]}]}', 3, 13],
  ['siblings do not add up', '[[1], [2], [3], [[4]]]', 3, null],
  ['brackets inside strings do not count', '{"a": "[[[[{{{{", "b": 1}', 2, null],
  ['an escaped quote does not end the string', '{"a": "\\"[[[[", "b": 1}', 2, null],
  ['an escaped backslash before the closing quote ends it', '{"a": "\\\\", "b": [[[1]]]}', 3, 19],
  ['stray closers do not make room for more', ']]]][[[[', 3, 7],
  ['the tester\'s file: 100,000 levels, stopped at the limit', `{"mcpServers":${nested(100_000)}}`, MAX_CONFIG_NESTING, 14 + MAX_CONFIG_NESTING - 1],
];
for (const [title, text, limit, expected] of cases) {
  test(`json depth :: ${title}`, () => assert.is(findTooDeep(text, limit), expected));
}

test('json depth :: the parse refuses it with file, line:column, expected and found, without running its stack out', () => {
  const text = `{\n  "mcpServers": {\n    "a": ${nested(100_000)}\n  }\n}\n`;
  const parsed = parseJsonStrict(text, '/cfg/mcp.json');
  assert.not.ok(parsed.ok);
  if (!parsed.ok) {
    assert.is(
      formatProblem(parsed.problem),
      `/cfg/mcp.json:3:${10 + MAX_CONFIG_NESTING - 2}: expected objects and arrays nested at most ${MAX_CONFIG_NESTING} levels deep (a configuration needs about 6), found a bracket opening level ${MAX_CONFIG_NESTING + 1}`,
    );
  }
});

test('json depth :: a configuration at the limit still parses', () => {
  const text = `{"mcpServers": {"a": {"command": "x", "args": ${nested(MAX_CONFIG_NESTING - 3)}}}}`;
  assert.ok(parseJsonStrict(text, '/cfg/mcp.json').ok);
});

// Its cost is measured in benchmarks/config-reload.ts (a 10 MB mcp.json), not here.
test('json depth :: a 10 MB text of shallow entries passes the scan', () => {
  const text = JSON.stringify({ mcpServers: Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`s${i}`, { command: 'node', args: ['x'.repeat(200)] }])) });
  assert.ok(text.length > 9_000_000);
  assert.is(findTooDeep(text), null);
});

test.run();
