// lazy-tools.ts findTool: a tool named by server and tool, bare or qualified.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findTool } from '../../lib/hub/lazy-tools.ts';
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

test.run();
