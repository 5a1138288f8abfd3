// Keys written twice in mcp.json: found with both lines; a server name twice makes that entry
// invalid, mcpServers twice rejects the file, any other duplicate warns; the CLI's edit refuses a
// file with a duplicate on the way to the array it edits (not_editable), and nothing is thrown.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findDuplicateKeys } from '../../lib/config/duplicate-keys.ts';
import { ConfigEditError, planToolEdit } from '../../lib/config/edit-plan.ts';
import { formatProblem } from '../../lib/config/errors.ts';
import { loadConfig } from '../../lib/config/load.ts';
import { tempDir } from '../helpers/service.ts';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const cases: [title: string, text: string, expected: string[]][] = [
  ['none', '{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}', []],
  ['a top-level key twice', lines('{', '  "a": 1,', '  "a": 2', '}'), ['a at [] lines 2 and 3']],
  ['a server name twice', lines('{"mcpServers": {', '  "one": {"command": "x"},', '  "two": {"command": "y"},', '  "one": {"command": "z"}', '}}'), ['one at [mcpServers] lines 2 and 4']],
  ['a key of an entry twice', lines('{"mcpServers": {"one": {', '  "args": ["a"],', '  "args": ["b"]', '}}}'), ['args at [mcpServers,one] lines 2 and 3']],
  ['objects in an array are apart', '[{"a": 1}, {"a": 1, "a": 2}]', ['a at [1] lines 1 and 1']],
  ['three times: each against the first', lines('{', '"k": 1,', '"k": 2,', '"k": 3', '}'), ['k at [] lines 2 and 3', 'k at [] lines 2 and 4']],
  ['the same key in sibling objects is fine', '{"x": {"k": 1}, "y": {"k": 1}}', []],
  ['a key equal to a value is fine', '{"k": "k", "v": "k"}', []],
];
for (const [title, text, expected] of cases) {
  test(`duplicate keys :: ${title}`, () => {
    assert.equal(findDuplicateKeys(text).map((d) => `${d.key} at [${d.path.join()}] lines ${d.first} and ${d.line}`), expected);
  });
}

async function load(text: string) {
  const dir = tempDir('agent-duplicates-');
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, text);
  return { file, outcome: await loadConfig({ file, dir } as never, { PATH: '/usr/bin' }) };
}

test('duplicate keys :: a server name twice: that entry is invalid, naming both lines; the others load', async () => {
  const { file, outcome } = await load(lines('{"mcpServers": {', '  "one": {"command": "x", "tags": ["a"]},', '  "two": {"command": "y"},', '  "one": {"command": "z", "tags": ["b"]}', '}}'));
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const one = outcome.config.servers.find((s) => s.name === 'one')!;
  assert.is(one.spec, undefined);
  assert.equal(one.problems!.map(formatProblem), [`${file}:4:3 at mcpServers.one: expected each server name once in mcpServers (one of the two entries would be dropped), found the name "one" twice (lines 2 and 4)`]);
  assert.ok(outcome.config.servers.find((s) => s.name === 'two')!.spec);
});

test('duplicate keys :: a key of an entry twice warns with the file, the path and both lines; the last is used', async () => {
  const { file, outcome } = await load(lines('{"mcpServers": {"one": {', '  "command": "x",', '  "args": ["first"],', '  "args": ["second"]', '}}}'));
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  assert.equal(outcome.config.warnings, [`${file}: the key "args" is written twice in mcpServers.one (lines 3 and 4): the one at line 4 is used, the other is ignored`]);
  assert.equal((outcome.config.servers[0]!.spec as { args: string[] }).args, ['second']);
});

test('duplicate keys :: mcpServers twice rejects the file (the servers of the first would be dropped)', async () => {
  const { file, outcome } = await load(lines('{', '  "mcpServers": {"one": {"command": "x"}},', '  "mcpServers": {"two": {"command": "y"}}', '}'));
  assert.not.ok(outcome.ok);
  if (outcome.ok) return;
  assert.equal(outcome.problems.map(formatProblem), [`${file}:3:3 at mcpServers: expected one mcpServers object (the servers of the other would be dropped), found a second one (lines 2 and 3)`]);
});

const editCases: [title: string, text: string, message: string | null][] = [
  [
    'the server twice (the tester\'s file: jsonc-parser\'s edit failed with a stack trace)',
    lines('{"mcpServers": {', '  "one": {"command": "x"},', '  "one": {"command": "y"}', '}}'),
    'Cannot edit mcp.json: the key "one" is written twice at mcpServers.one (lines 2 and 3); JSON readers use the last one and ignore the other: remove or rename one of them first',
  ],
  ['disabledTools twice', lines('{"mcpServers": {"one": {', '  "disabledTools": ["a"],', '  "disabledTools": ["b"]', '}}}'), 'Cannot edit mcp.json: the key "disabledTools" is written twice at mcpServers.one.disabledTools (lines 2 and 3); JSON readers use the last one and ignore the other: remove or rename one of them first'],
  ['mcpServers twice', lines('{', '"mcpServers": {"one": {}},', '"mcpServers": {"one": {}}', '}'), 'Cannot edit mcp.json: the key "mcpServers" is written twice at mcpServers (lines 2 and 3); JSON readers use the last one and ignore the other: remove or rename one of them first'],
  // Found by a re-check: the server only in the first of two mcpServers was 'not found' (the check ran before).
  ['mcpServers twice, the server in the first only', lines('{', '"mcpServers": {"one": {}},', '"mcpServers": {"two": {}}', '}'), 'Cannot edit mcp.json: the key "mcpServers" is written twice at mcpServers (lines 2 and 3); JSON readers use the last one and ignore the other: remove or rename one of them first'],
  ['a duplicate elsewhere does not stop the edit', lines('{"mcpServers": {', '  "one": {"command": "x"},', '  "two": {"args": [], "args": []}', '}}'), null],
];
for (const [title, text, message] of editCases) {
  test(`duplicate keys :: edit: ${title}`, () => {
    let caught: unknown = null;
    try {
      planToolEdit(text, 'one', 't3', 'disable');
    } catch (error) {
      caught = error;
    }
    if (message === null) return assert.is(caught, null);
    assert.instance(caught, ConfigEditError);
    assert.is((caught as ConfigEditError).code, 'not_editable');
    assert.is((caught as ConfigEditError).message, message);
  });
}

test.run();
