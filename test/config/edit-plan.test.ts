// Planning an edit of mcp.json for `agent mcp tools disable|enable` (pure): the rest of the file
// keeps its bytes, template precedence, qualified names, idempotency, refusals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigEditError, findToolRules, logicalToolName, planToolEdit, type ToolAction } from '../../lib/config/edit-plan.ts';
import { detectFormatting } from '../../lib/config/json-text-edit.ts';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const edit = (text: string, server: string, tool: string, action: ToolAction = 'disable') => planToolEdit(text, server, tool, action).text;

function editError(fn: () => unknown): ConfigEditError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, ConfigEditError);
    return error as ConfigEditError;
  }
  throw new Error('expected a ConfigEditError');
}

// A hand-written file: inline arrays and objects, odd key order, other servers around.
const TWO_SPACES = lines(
  '{',
  '  "$schema": "https://example.com/mcp.schema.json",',
  '  "serverDefaults": { "requestTimeout": 30000 },',
  '  "mcpServers": {',
  '    "zeta": {',
  '      "command": "node",',
  '      "args": ["server.mjs", "--flag"],',
  '      "env": { "B": "2", "A": "1" }',
  '    },',
  '    "alpha": {',
  '      "url": "http://localhost:9000/mcp"',
  '    }',
  '  }',
  '}',
);

test('edit plan :: disable adds disabledTools after the last key; every other byte stays (2 spaces)', () => {
  assert.is(
    edit(TWO_SPACES, 'zeta', 'echo'),
    lines(
      '{',
      '  "$schema": "https://example.com/mcp.schema.json",',
      '  "serverDefaults": { "requestTimeout": 30000 },',
      '  "mcpServers": {',
      '    "zeta": {',
      '      "command": "node",',
      '      "args": ["server.mjs", "--flag"],',
      '      "env": { "B": "2", "A": "1" },',
      '      "disabledTools": [',
      '        "echo"',
      '      ]',
      '    },',
      '    "alpha": {',
      '      "url": "http://localhost:9000/mcp"',
      '    }',
      '  }',
      '}',
    ),
  );
});

test('edit plan :: 4-space indentation is detected and kept', () => {
  const text = JSON.stringify({ mcpServers: { a: { command: 'x', args: ['1'] }, b: { command: 'y' } } }, null, 4) + '\n';
  const expected = JSON.stringify({ mcpServers: { a: { command: 'x', args: ['1'], disabledTools: ['echo'] }, b: { command: 'y' } } }, null, 4) + '\n';
  assert.equal(detectFormatting(text), { insertSpaces: true, tabSize: 4, eol: '\n', insertFinalNewline: false });
  assert.is(edit(text, 'a', 'echo'), expected);
  // A second tool is appended to the existing array, in the same layout.
  const twice = edit(expected, 'a', 'add')!;
  assert.is(twice, JSON.stringify({ mcpServers: { a: { command: 'x', args: ['1'], disabledTools: ['echo', 'add'] }, b: { command: 'y' } } }, null, 4) + '\n');
});

test('edit plan :: tab indentation is detected and kept; no final newline stays none', () => {
  const text = JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['q'] } } }, null, '\t');
  assert.equal(detectFormatting(text).insertSpaces, false);
  assert.is(edit(text, 'a', 'echo'), JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['q', 'echo'] } } }, null, '\t'));
  const fresh = JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, '\t');
  assert.is(edit(fresh, 'a', 'echo'), JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['echo'] } } }, null, '\t'));
});

test('edit plan :: CRLF line endings and a byte-order mark are kept', () => {
  const text = '\uFEFF' + JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, 2).replace(/\n/g, '\r\n') + '\r\n';
  const expected = '\uFEFF' + JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['echo'] } } }, null, 2).replace(/\n/g, '\r\n') + '\r\n';
  assert.is(edit(text, 'a', 'echo'), expected);
});

test('edit plan :: one-line containers stay on one line, spaced like the document', () => {
  assert.is(edit('{"mcpServers":{"a":{"command":"x"}}}', 'a', 'echo'), '{"mcpServers":{"a":{"command":"x","disabledTools":["echo"]}}}');
  assert.is(edit('{"mcpServers": {"a": {"command": "x", "disabledTools": ["q"]}}}', 'a', 'echo'), '{"mcpServers": {"a": {"command": "x", "disabledTools": ["q", "echo"]}}}');
  const inline = lines('{', '  "mcpServers": {', '    "a": { "command": "x", "disabledTools": [] }', '  }', '}');
  assert.is(edit(inline, 'a', 'echo'), lines('{', '  "mcpServers": {', '    "a": { "command": "x", "disabledTools": ["echo"] }', '  }', '}'));
});

test('edit plan :: an empty multi-line entry gets a properly indented property', () => {
  const text = lines('{', '  "mcpServers": {', '    "a": {', '    }', '  }', '}');
  assert.is(edit(text, 'a', 'echo'), lines('{', '  "mcpServers": {', '    "a": {', '      "disabledTools": [', '        "echo"', '      ]', '    }', '  }', '}'));
});

test('edit plan :: enable removes the entry, first, middle or last, inline or multi-line', () => {
  const multi = (list: string[]) => JSON.stringify({ mcpServers: { a: { disabledTools: list, command: 'x' } } }, null, 2) + '\n';
  assert.is(edit(multi(['echo', 'add', 'pid']), 'a', 'echo', 'enable'), multi(['add', 'pid']));
  assert.is(edit(multi(['echo', 'add', 'pid']), 'a', 'add', 'enable'), multi(['echo', 'pid']));
  assert.is(edit(multi(['echo', 'add', 'pid']), 'a', 'pid', 'enable'), multi(['echo', 'add']));
  assert.is(edit(multi(['echo']), 'a', 'echo', 'enable'), multi([]));
  const inline = (list: string) => `{"mcpServers": {"a": {"disabledTools": [${list}], "command": "x"}}}`;
  assert.is(edit(inline('"q", "r", "s"'), 'a', 's', 'enable'), inline('"q", "r"'));
  assert.is(edit(inline('"q", "r", "s"'), 'a', 'q', 'enable'), inline('"r", "s"'));
  assert.is(edit(inline('"q", "r", "s"'), 'a', 'r', 'enable'), inline('"q", "s"'));
});

test('edit plan :: qualified names: stored as the logical name; enable removes both forms', () => {
  const text = JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, 2);
  const plan = planToolEdit(text, 'a', 'a_agent_echo', 'disable');
  assert.is(plan.tool, 'echo');
  assert.is(plan.added, 'echo');
  assert.equal(JSON.parse(plan.text!).mcpServers.a.disabledTools, ['echo']);
  // Already disabled under its qualified name: nothing to do.
  const qualified = JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['a_agent_echo'] } } }, null, 2);
  assert.is(planToolEdit(qualified, 'a', 'echo', 'disable').text, undefined);
  const both = JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['a_agent_echo', 'add', 'echo'] } } }, null, 2);
  const enabled = planToolEdit(both, 'a', 'echo', 'enable');
  assert.equal(enabled.removed, ['a_agent_echo', 'echo']);
  assert.equal(JSON.parse(enabled.text!).mcpServers.a.disabledTools, ['add']);
  // Another server's prefix is part of the tool name; a bare prefix names no tool.
  assert.is(logicalToolName('a', 'b_agent_x'), 'b_agent_x');
  assert.is(editError(() => logicalToolName('a', 'a_agent_')).code, 'bad_tool_name');
  assert.is(editError(() => planToolEdit(text, 'a', '  ', 'disable')).code, 'bad_tool_name');
});

test('edit plan :: a name in mcpTemplates and mcpServers: the template is edited, the stale server entry is not', () => {
  const text = JSON.stringify(
    { mcpServers: { t: { command: 'old', disabledTools: ['stale'] } }, mcpTemplates: { t: { command: 'new', disabledTools: ['x'] } } },
    null,
    2,
  );
  const plan = planToolEdit(text, 't', 'echo', 'disable');
  assert.is(plan.rules.section, 'mcpTemplates');
  assert.is(plan.rules.path, 'mcpTemplates.t.disabledTools');
  assert.ok(plan.rules.shadowedServerEntry);
  const after = JSON.parse(plan.text!);
  assert.equal(after.mcpTemplates.t.disabledTools, ['x', 'echo']);
  assert.equal(after.mcpServers.t.disabledTools, ['stale']);
  // 'stale' is only in the stale entry: for the template it is already enabled.
  assert.is(planToolEdit(text, 't', 'stale', 'enable').text, undefined);
  const onlyTemplate = findToolRules({ mcpTemplates: { u: { command: 'x' } } }, 'u');
  assert.equal(onlyTemplate?.section, 'mcpTemplates');
  assert.not.ok(onlyTemplate?.shadowedServerEntry);
});

test('edit plan :: idempotent: already disabled / already enabled plans no text', () => {
  const text = JSON.stringify({ mcpServers: { a: { command: 'x', disabledTools: ['echo'] } } }, null, 2);
  assert.is(planToolEdit(text, 'a', 'echo', 'disable').text, undefined);
  assert.is(planToolEdit(text, 'a', 'add', 'enable').text, undefined);
});

test('edit plan :: unknown server, invalid JSON and non-editable entries are refused', () => {
  const text = JSON.stringify({ mcpServers: { a: { command: 'x' }, b: 'nope', c: { command: 'x', disabledTools: 'echo' } }, mcpTemplates: { t: {} } });
  const unknown = editError(() => planToolEdit(text, 'zzz', 'echo', 'disable', '/etc/agent/mcp.json'));
  assert.is(unknown.code, 'unknown_server');
  assert.match(unknown.message, /Server 'zzz' not found in \/etc\/agent\/mcp.json/);
  assert.match(unknown.message, /configured: a, b, c, t/);
  assert.is(editError(() => planToolEdit(text, 'b', 'echo', 'disable')).code, 'not_editable');
  assert.match(editError(() => planToolEdit(text, 'c', 'echo', 'disable')).message, /mcpServers\.c\.disabledTools is not an array/);
  const broken = editError(() => planToolEdit('{ "mcpServers": { // no comments\n } }', 'a', 'echo', 'disable', 'f.json'));
  assert.is(broken.code, 'unreadable');
  assert.match(broken.message, /f\.json:1:/);
});

test.run();
