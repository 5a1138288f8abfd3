import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isToolDisabled, withEffectiveDescription } from '../../lib/shared/tool-policy.ts';
import { qualify, splitQualified } from '../../lib/shared/names.ts';

const policy = (disabledTools: string[], toolDescriptionOverrides: Record<string, string> = {}) => ({ disabledTools, toolDescriptionOverrides });
const tool = { name: 'create_issue', description: 'upstream', inputSchema: { type: 'object' as const } };

const disabled: [string, string[], boolean][] = [
  ['a logical name', ['create_issue'], true],
  ['a qualified name', ['github_agent_create_issue'], true],
  ['another server qualified name', ['gitlab_agent_create_issue'], false],
  ['a different tool', ['delete_issue'], false],
  ['an empty denylist', [], false],
  ['a prefix only', ['create'], false],
];
for (const [name, list, expected] of disabled) {
  test(`tool-policy :: disabled by ${name} is ${expected}`, () => assert.is(isToolDisabled('github', 'create_issue', policy(list)), expected));
}

test('tool-policy :: an override replaces only the description', () => {
  const effective = withEffectiveDescription('github', tool, policy([], { create_issue: 'mine' }));
  assert.equal(effective, { ...tool, description: 'mine' });
  assert.equal(tool.description, 'upstream', 'the upstream tool is not changed');
});

test('tool-policy :: a qualified override key works too; no key keeps the upstream tool object', () => {
  assert.is(withEffectiveDescription('github', tool, policy([], { github_agent_create_issue: 'q' })).description, 'q');
  assert.is(withEffectiveDescription('github', tool, policy([])), tool);
});

test('names :: qualify and split on the first _agent_', () => {
  assert.is(qualify('github', 'create_issue'), 'github_agent_create_issue');
  assert.equal(splitQualified('a_agent_b_agent_c'), { server: 'a', name: 'b_agent_c' });
  assert.equal(splitQualified('files_agent_file:///srv/a.txt'), { server: 'files', name: 'file:///srv/a.txt' });
  assert.is(splitQualified('no-separator'), null);
  assert.is(splitQualified('_agent_x'), null);
});

test.run();
