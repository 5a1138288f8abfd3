// The real CLI: usage errors and help of `agent mcp ...`, exact output and exit codes (no service needed).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/service.ts';

const usage = (message: string, help: string) => `agent: ${message}\nRun \`${help}\` for usage.\n`;

// [arguments, exit code, stdout, stderr]
const cases: [string[], number, string, string][] = [
  [
    ['mcp', '--help'],
    0,
    [
      'Usage: agent mcp <command> [options]',
      '',
      'Operate the running service and its mcp.json: backend status, restarts, reloads and tool rules.',
      '',
      'Commands:',
      '  status [server]     Live state of each backend from the running service; the configured view when none runs.',
      '  restart <server>    Restart a backend of the running service at once (also from crash loop).',
      '  reload              Make the running service reload its configuration now.',
      '  tools <command>     List the tools of a server, and disable or enable them in mcp.json.',
      '',
      'Run `agent mcp <command> --help` for the arguments and options of a command.',
      '',
    ].join('\n'),
    '',
  ],
  [['mcp'], 2, '', usage('`agent mcp` needs a command: status, restart, reload, tools', 'agent mcp --help')],
  [['mcp', 'tools'], 2, '', usage('`agent mcp tools` needs a command: list, disable, enable', 'agent mcp tools --help')],
  [['mcp', 'restart'], 2, '', usage('Missing <server>: agent mcp restart <server>', 'agent mcp restart --help')],
  [['mcp', 'restart', 'a', 'b', '--config-dir', '/nonexistent'], 2, '', usage('Too many arguments ("b"): agent mcp restart <server>', 'agent mcp restart --help')],
  [['mcp', 'reload', 'now'], 2, '', usage('Too many arguments ("now"): agent mcp reload', 'agent mcp reload --help')],
  [['mcp', 'status', 'a', 'b'], 2, '', usage('Too many arguments ("b"): agent mcp status [server]', 'agent mcp status --help')],
  [['mcp', 'tools', 'enable', 'a'], 2, '', usage('Missing <tool>: agent mcp tools enable <server> <tool>', 'agent mcp tools enable --help')],
  [['mcp', 'status', '--config'], 2, '', usage('Expected --config to be given once with a value (--config <file>), got no value', 'agent mcp status --help')],
  [['mcp', 'reload', '--verbose'], 2, '', usage('Unknown option --verbose for `agent mcp reload`; expected --config, --config-dir, --state-dir or --help', 'agent mcp reload --help')],
  // A negative value reaches the range check instead of reading as an unknown option `-1`.
  [['serve', '--worker-nice', '-1'], 2, '', usage('Expected --worker-nice to be a whole number from 0 to 19, got "-1"', 'agent --help')],
  [['serve', '--mcp-workers', '0'], 2, '', usage('Expected --mcp-workers to be a whole number from 1 to 64, got "0"', 'agent --help')],
  [['serve', '--port', '-80', '--config-dir', '/nonexistent'], 2, '', usage('Expected --port to be a whole number from 0 to 65535, got "-80"', 'agent --help')],
  // An option given without a value is still refused, not taken as unset.
  [['serve', '--port', '--config-dir', '/nonexistent'], 2, '', usage('Expected --port to be given a whole number from 0 to 65535, got no value', 'agent --help')],
  [['serve', '--config-dir', '/nonexistent', '--config'], 2, '', usage('Expected --config to be given a value, got no value', 'agent --help')],
];

for (const [args, code, stdout, stderr] of cases) {
  test(`cli usage :: agent ${args.join(' ')} exits ${code}`, async () => {
    const result = await runCli(args);
    assert.equal(result, { code, stdout, stderr });
  });
}

test('cli usage :: agent mcp tools --help lists its commands, exit 0', async () => {
  const result = await runCli(['mcp', 'tools', '--help']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stderr, '');
  assert.match(result.stdout, /^Usage: agent mcp tools <command> \[options\]\n/);
  assert.match(result.stdout, /\nCommands:\n {2}list <server> {14}Tools of a server: [^\n]+\n {2}disable <server> <tool> {4}Add a tool [^\n]+\n {2}enable <server> <tool> {5}Remove a tool [^\n]+\n\n/);
});

test("cli usage :: a command's own --help is sade's, exit 0", async () => {
  const result = await runCli(['mcp', 'restart', '--help']);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /\$ agent mcp restart <server> \[options\]/);
  assert.match(result.stdout, /--config-dir {4}Configuration directory/);
});

// Found by an outside check: output past a pipe's 64 KiB was dropped by process.exit() when the
// reader was slower than the command, with exit code 0.
test('cli usage :: 180 KB of status through a pipe read late arrives whole', async () => {
  const dir = tempDir('agent-cli-pipe-');
  const servers = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`srv${i}`, { command: 'node', args: ['/srv/x.js', '--flag'], env: { A: 'b' } }]));
  fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), 'mcp', 'status', '--verbose', '--json', '--config-dir', dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const chunks: Buffer[] = [];
  const ended = new Promise((resolve) => child.stdout.on('end', resolve));
  // Nothing is read until the command has had time to write all it could and exit.
  child.stdout.pause();
  const timer = setTimeout(() => child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk)).resume(), 3_000);
  const code = await exited;
  await new Promise((resolve) => setTimeout(resolve, 3_100));
  clearTimeout(timer);
  await ended;
  const text = Buffer.concat(chunks).toString('utf8');
  assert.is(code, 0);
  assert.ok(text.length > 65_536, `${text.length} bytes`);
  assert.is((JSON.parse(text) as { effective: unknown[] }).effective.length, 400);
});

test.run();
