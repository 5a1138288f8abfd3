// The router's name mapping (decisions §9) as a table: `<server>_agent_<name>`, split on the first `_agent_`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { qualify, splitQualified } from '../../lib/shared/names.ts';

const splits: [string, { server: string; name: string } | null][] = [
  ['fs_agent_read', { server: 'fs', name: 'read' }],
  ['my-server_agent_tool_agent_x', { server: 'my-server', name: 'tool_agent_x' }],
  ['a_agent_', { server: 'a', name: '' }],
  ['_agent_read', null],
  ['read', null],
  ['fs_agentread', null],
  ['', null],
];
for (const [qualified, parts] of splits) test(`names :: split ${JSON.stringify(qualified)}`, () => assert.equal(splitQualified(qualified), parts));

test('names :: qualify and split are inverse for any server name without the separator', () => {
  for (const [server, name] of [['fs', 'read'], ['s_1', 'x_agent_y'], ['S-2', '']] as const) assert.equal(splitQualified(qualify(server, name)), { server, name });
});

test.run();
