// lazy-tools.ts findTool: a tool named by server and tool, bare or qualified.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findTool, toolList } from '../../lib/hub/lazy-tools.ts';
import type { CatalogView } from '../../lib/hub/catalog.ts';

const view = (names: string[]) => ({ tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })) }) as unknown as CatalogView;

test('lazy tools :: findTool takes the backend name or the qualified one', () => {
  const v = view(['fs_agent_read', 'fs_agent_write']);
  assert.is(findTool({ server: 'fs', tool: 'read' }, v).name, 'fs_agent_read');
  assert.is(findTool({ server: 'fs', tool: 'fs_agent_write' }, v).name, 'fs_agent_write');
});

test("lazy tools :: a backend tool whose own name starts with '<server>_agent_' is found by that name", () => {
  const v = view(['fs_agent_fs_agent_x', 'fs_agent_y']);
  assert.is(findTool({ server: 'fs', tool: 'fs_agent_x' }, v).name, 'fs_agent_fs_agent_x');
  assert.is(findTool({ server: 'fs', tool: 'fs_agent_y' }, v).name, 'fs_agent_y', 'and a qualified name still works');
});

test('lazy tools :: an unknown tool is an error naming it and its server', () => {
  const v = view(['fs_agent_read']);
  assert.throws(() => findTool({ server: 'fs', tool: 'nope' }, v), /Unknown tool: nope on server fs/);
  assert.throws(() => findTool({ server: 'other', tool: 'read' }, v), /Unknown tool: read on server other/);
});

// Found by an outside check: a disabled tool got 'Unknown tool' through tool_invoke and
// tool_schema, and the lazy tools' errors had no data.code.
const thrown = (fn: () => unknown): { code: number; message: string; data: unknown } => {
  try {
    fn();
  } catch (error) {
    const e = error as { code: number; message: string; data: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error('expected an error');
};

test('lazy tools :: a disabled tool gets tool_disabled as a direct call does; an unknown one unknown_tool; bad arguments bad_request', () => {
  const v = view(['fs_agent_read']);
  const disabled = (server: string, tool: string) => server === 'fs' && tool === 'env';
  assert.equal(thrown(() => findTool({ server: 'fs', tool: 'env' }, v, disabled)), {
    code: -32602,
    message: 'Tool fs_agent_env is disabled by mcpServers.fs.disabledTools; enable it with `agent mcp tools enable fs env`',
    data: { code: 'tool_disabled', tool: 'fs_agent_env', disabled: true },
  });
  assert.equal(thrown(() => findTool({ server: 'fs', tool: 'nope' }, v, disabled)).data, { code: 'unknown_tool', server: 'fs', tool: 'nope' });
  const tagsOf = () => [];
  assert.equal(thrown(() => toolList({ limit: 0 }, { view: v, tagsOf })).data, { code: 'bad_request' });
  assert.equal(thrown(() => toolList({ cursor: 'zzz' }, { view: v, tagsOf })).data, { code: 'bad_request' });
  // Found by a re-check: a number or an empty string read as the first page.
  assert.equal(thrown(() => toolList({ cursor: 5 }, { view: v, tagsOf })).data, { code: 'bad_request' });
  assert.equal(thrown(() => toolList({ cursor: '' }, { view: v, tagsOf })).data, { code: 'bad_request' });
  assert.is((toolList({ cursor: Buffer.from('0').toString('base64url') }, { view: v, tagsOf }).structuredContent as { total: number }).total, 1, 'a cursor handed out still works');
  assert.equal(thrown(() => findTool({ server: '' }, v)).data, { code: 'bad_request' });
});

test.run();
