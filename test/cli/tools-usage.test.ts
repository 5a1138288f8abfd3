import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolsUsageProblem } from '../../lib/cli/tools-commands.ts';

test('tools usage :: only `agent mcp tools ...` lines are checked', () => {
  assert.is(toolsUsageProblem(['serve', '--port', '0']), null);
  assert.is(toolsUsageProblem(['mcp', 'status', 'x']), null);
  assert.is(toolsUsageProblem(['mcp', 'tools', 'list', '--help']), null, 'help is left to sade');
});

test('tools usage :: argument counts, with value flags skipped', () => {
  assert.is(toolsUsageProblem(['mcp', 'tools', 'list', 'a', '--config', 'f.json', '--json']), null);
  assert.is(toolsUsageProblem(['mcp', 'tools', 'disable', '--config-dir', 'd', 'a', 'echo']), null);
  assert.is(toolsUsageProblem(['mcp', 'tools', 'enable', 'a', '--config=f.json', 'echo']), null);
  assert.is(toolsUsageProblem(['mcp', 'tools', 'disable', 'a', '', '--config', 'f']), null, 'an empty name is the command\'s to refuse');
  assert.match(toolsUsageProblem(['mcp', 'tools'])!, /needs a subcommand/);
  assert.match(toolsUsageProblem(['mcp', 'tools', 'show', 'a'])!, /Unknown subcommand `agent mcp tools show`/);
  assert.match(toolsUsageProblem(['mcp', 'tools', 'list', '--config', 'a'])!, /Missing <server>/);
  assert.match(toolsUsageProblem(['mcp', 'tools', 'disable', 'a'])!, /Missing <tool>: agent mcp tools disable <server> <tool>/);
  assert.match(toolsUsageProblem(['mcp', 'tools', 'enable'])!, /Missing <server> and <tool>/);
  assert.match(toolsUsageProblem(['mcp', 'tools', 'enable', 'a', 'b', 'c'])!, /Too many arguments \("c"\)/);
  assert.is(toolsUsageProblem(['mcp', 'tools', 'disable', 'a', '--', '-dash-tool']), null);
});

test.run();
