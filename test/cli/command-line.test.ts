import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupHelp, readMcpCommandLine } from '../../lib/cli/command-line.ts';

// Usage errors: [command line, message, the help command it points to].
const usageCases: [string[], string, string][] = [
  [['mcp'], '`agent mcp` needs a command: status, restart, reload, tools', 'agent mcp --help'],
  [['mcp', 'stats'], 'Unknown command `agent mcp stats`; expected status, restart, reload, tools', 'agent mcp --help'],
  [['mcp', 'tools'], '`agent mcp tools` needs a command: list, disable, enable', 'agent mcp tools --help'],
  [['mcp', 'tools', 'show', 'a'], 'Unknown command `agent mcp tools show`; expected list, disable, enable', 'agent mcp tools --help'],
  [['mcp', 'restart'], 'Missing <server>: agent mcp restart <server>', 'agent mcp restart --help'],
  [['mcp', 'restart', '--config', 'f.json'], 'Missing <server>: agent mcp restart <server>', 'agent mcp restart --help'],
  [['mcp', 'restart', 'a', 'b'], 'Too many arguments ("b"): agent mcp restart <server>', 'agent mcp restart --help'],
  [['mcp', 'restart', ' '], '`agent mcp restart <server>` needs a non-empty server name', 'agent mcp restart --help'],
  [['mcp', 'reload', 'now'], 'Too many arguments ("now"): agent mcp reload', 'agent mcp reload --help'],
  [['mcp', 'status', 'a', 'b', 'c'], 'Too many arguments ("b" "c"): agent mcp status [server]', 'agent mcp status --help'],
  [['mcp', 'tools', 'list', '--config', 'a'], 'Missing <server>: agent mcp tools list <server>', 'agent mcp tools list --help'],
  [['mcp', 'tools', 'disable', 'a'], 'Missing <tool>: agent mcp tools disable <server> <tool>', 'agent mcp tools disable --help'],
  [['mcp', 'tools', 'enable'], 'Missing <server> and <tool>: agent mcp tools enable <server> <tool>', 'agent mcp tools enable --help'],
  [['mcp', 'tools', 'enable', 'a', 'b', 'c'], 'Too many arguments ("c"): agent mcp tools enable <server> <tool>', 'agent mcp tools enable --help'],
  [['mcp', 'tools', 'disable', 'a', '', '--config', 'f'], '`agent mcp tools disable <server> <tool>` needs a non-empty tool name', 'agent mcp tools disable --help'],
  // options
  [['mcp', 'status', '--bogus'], 'Unknown option --bogus for `agent mcp status`; expected --config, --config-dir, --state-dir, --json, --verbose, --show-secrets or --help', 'agent mcp status --help'],
  [['mcp', 'reload', '-x'], 'Unknown option -x for `agent mcp reload`; expected --config, --config-dir, --state-dir or --help', 'agent mcp reload --help'],
  [['mcp', 'tools', 'enable', 'a', 'b', '--disabled'], 'Unknown option --disabled for `agent mcp tools enable`; expected --config, --config-dir, --state-dir or --help', 'agent mcp tools enable --help'],
  [['mcp', 'restart', 'a', '--config'], 'Expected --config to be given once with a value (--config <file>), got no value', 'agent mcp restart --help'],
  [['mcp', 'restart', 'a', '--config-dir', '--json'], 'Expected --config-dir to be given once with a value (--config-dir <dir>), got no value', 'agent mcp restart --help'],
  [['mcp', 'restart', 'a', '--config='], 'Expected --config to be given once with a value (--config <file>), got an empty value', 'agent mcp restart --help'],
  [['mcp', 'reload', '--config', 'a', '--config', 'b'], 'Expected --config to be given once with a value (--config <file>), got it 2 times', 'agent mcp reload --help'],
  [['mcp', 'status', '--json=yes'], 'Expected --json without a value, got "yes"', 'agent mcp status --help'],
];
for (const [args, message, help] of usageCases) {
  test(`command-line :: usage error: agent ${args.join(' ')}`, () => assert.equal(readMcpCommandLine(args), { kind: 'usage', message, help }));
}

// Well-formed lines: [command line, the argv sade gets].
const commandCases: [string[], string[]][] = [
  [['mcp', 'status'], ['mcp', 'status']],
  [['mcp', 'status', 'a', '--json', '--verbose', '--no-show-secrets'], ['mcp', 'status', 'a', '--json', '--verbose', '--no-show-secrets']],
  [['--json', 'mcp', 'status', 'a'], ['mcp', 'status', '--json', 'a']],
  [['mcp', 'tools', 'list', 'a', '--config', 'f.json', '--json'], ['mcp', 'tools', 'list', 'a', '--config', 'f.json', '--json']],
  [['mcp', 'tools', 'disable', '--config-dir', 'd', 'a', 'echo'], ['mcp', 'tools', 'disable', '--config-dir', 'd', 'a', 'echo']],
  [['mcp', 'tools', 'enable', 'a', '--config=f.json', 'echo'], ['mcp', 'tools', 'enable', 'a', '--config=f.json', 'echo']],
  [['mcp', 'tools', 'disable', 'a', '--', '-dash-tool'], ['mcp', 'tools', 'disable', 'a', '--', '-dash-tool']],
  // a command's own help is sade's; its arguments are not checked then
  [['mcp', 'tools', 'list', '--help'], ['mcp', 'tools', 'list', '--help']],
  [['mcp', 'restart', '-h'], ['mcp', 'restart', '-h']],
];
for (const [args, argv] of commandCases) {
  test(`command-line :: well formed: agent ${args.join(' ')}`, () => {
    const line = readMcpCommandLine(args);
    assert.is(line?.kind, 'command');
    if (line?.kind === 'command') assert.equal(line.argv, argv);
  });
}

test('command-line :: sade gets the boolean and value flags of the command', () => {
  const line = readMcpCommandLine(['mcp', 'status']);
  assert.equal(line?.kind === 'command' && [line.boolean, line.string], [['json', 'verbose', 'show-secrets'], ['config', 'config-dir', 'state-dir']]);
});

test('command-line :: other commands are not checked', () => {
  assert.is(readMcpCommandLine(['serve', '--port', '0']), null);
  assert.is(readMcpCommandLine([]), null);
  assert.is(readMcpCommandLine(['--help']), null);
});

test('command-line :: group help lists the commands with a one-line description', () => {
  assert.equal(readMcpCommandLine(['mcp', '--help']), { kind: 'help', text: groupHelp(['mcp']) });
  assert.equal(readMcpCommandLine(['mcp', 'tools', '-h', '--config', 'x']), { kind: 'help', text: groupHelp(['mcp', 'tools']) });
  assert.is(
    groupHelp(['mcp', 'tools']),
    [
      'Usage: agent mcp tools <command> [options]',
      '',
      'List the tools of a server, and disable or enable them in mcp.json.',
      '',
      'Commands:',
      '  list <server>              Tools of a server: the live inventory (enabled/disabled, effective descriptions) from the running service; the configured rules when none runs.',
      "  disable <server> <tool>    Add a tool to the server's disabledTools in mcp.json (logical or <server>_agent_<tool> name).",
      "  enable <server> <tool>     Remove a tool from the server's disabledTools in mcp.json (both its logical and qualified names).",
      '',
      'Run `agent mcp tools <command> --help` for the arguments and options of a command.',
      '',
    ].join('\n'),
  );
  assert.match(groupHelp(['mcp']), /\n {2}restart <server> {4}Restart a backend of the running service at once \(also from crash loop\)\.\n {2}reload {14}Make/);
  assert.match(groupHelp(['mcp']), /\n {2}tools <command> {5}List the tools of a server, and disable or enable them in mcp\.json\.\n/);
});

test.run();
