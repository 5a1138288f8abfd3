#!/usr/bin/env node
// The `agent` command line: parses, calls lib/, prints, and sets the exit code.
import sade from 'sade';
import { readMcpCommandLine } from '../lib/cli/command-line.ts';
import type { CommandResult, LocationFlags, StatusFlags } from '../lib/cli/mcp-commands.ts';
import { commandName, MCP_COMMANDS, synopsis } from '../lib/cli/mcp-grammar.ts';
import { parseServeOptions, serveArgv, UsageError } from '../lib/cli/serve-options.ts';
import type { ToolsEditFlags, ToolsListFlags } from '../lib/cli/tools-commands.ts';
import { serve } from '../lib/main/serve.ts';
import { EXIT_RUNTIME, EXIT_USAGE } from '../lib/shared/errors.ts';
import { SERVICE_VERSION } from '../lib/shared/version.ts';

// How long after the first signal another one counts as a copy of it, not as an operator's second.
const REPEAT_SIGNAL_MS = 1_000;

function usageError(message: string): never {
  process.stderr.write(`agent: ${message}\nRun \`agent --help\` for usage.\n`);
  process.exit(EXIT_USAGE);
}

const prog = sade('agent').version(SERVICE_VERSION);

prog
  .command('serve')
  .describe('Run the service: supervise the configured MCP backends and serve health endpoints.')
  .option('--config', 'Configuration file (AGENT_CONFIG); default <config-dir>/mcp.json')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR); default ~/.config/agent')
  .option('--host', 'Address to listen on (AGENT_HOST)', '127.0.0.1')
  .option('--port', 'Port to listen on, 0 for any free port (AGENT_PORT)', 3050)
  .option('--health-info-level', 'Health detail level: full, basic or minimal (AGENT_HEALTH_INFO_LEVEL)', 'minimal')
  .option('--health-rate-limit', 'Health requests per client IP per window, 0 disables (AGENT_HEALTH_RATE_LIMIT)', 200)
  .option('--health-rate-window', 'Health rate-limit window in seconds (AGENT_HEALTH_RATE_WINDOW)', 300)
  .option('--health-rate-exempt', 'Comma-separated IPs/CIDRs exempt from the health rate limit (AGENT_HEALTH_RATE_EXEMPT)')
  .option('--log-level', 'fatal, error, warn, info, debug or trace (AGENT_LOG_LEVEL)', 'info')
  .option('--log-format', 'json or pretty (AGENT_LOG_FORMAT)', 'json')
  .option('--reload', 'Watch the configuration for changes; --no-reload turns it off', true)
  .option('--transport', 'Serve MCP clients over http (/mcp, /sse) or stdio (AGENT_TRANSPORT)', 'http')
  .option('--http', 'Listen for HTTP; --no-http (with --transport stdio) serves no HTTP at all', true)
  .option('--lazy-tools', 'Expose tool_list, tool_schema and tool_invoke instead of every backend tool (AGENT_LAZY_TOOLS)')
  .option('--allowed-origins', 'Comma-separated browser origins admitted besides the service\'s own, or * (AGENT_ALLOWED_ORIGINS)')
  .option('--initial-wait', 'At start, how long MCP requests wait for every backend\'s first connection attempt, ms (AGENT_INITIAL_WAIT)', 10000)
  .option('--allowed-hosts', 'Comma-separated Host names admitted besides the loopback names, or * (AGENT_ALLOWED_HOSTS)')
  .option('--max-message-bytes', 'Largest JSON-RPC message in any direction, bytes (AGENT_MAX_MESSAGE_BYTES)', 16777216)
  .option('--max-sessions', '2025 and SSE client sessions kept at most (AGENT_MAX_SESSIONS)', 1000)
  .option('--mcp-workers', 'Worker threads serving MCP clients (AGENT_MCP_WORKERS)', 1)
  .option('--worker-nice', 'Nice value (0-19) of MCP workers, backend workers and backend processes (AGENT_WORKER_NICE)', 10)
  .option('--worker-start-concurrency', 'Backends starting at once, until each first connects, fails or stops (at most 15 s); 0 = no limit (AGENT_WORKER_START_CONCURRENCY)', 2)
  .option('--backends-per-worker', 'Backends sharing one worker thread: less memory, less isolation (AGENT_BACKENDS_PER_WORKER)', 1)
  .option('--input-timeout', 'How long a client may take to answer a backend\'s question (elicitation, sampling), ms (AGENT_INPUT_TIMEOUT)', 300000)
  .option('--state-dir', 'Directory for writable state: backups, control socket, child records (AGENT_STATE_DIR); default the configuration directory')
  .option('--stderr-line-bytes', 'Backend stderr lines are cut at this many bytes, unless a server sets stderrLimits (AGENT_STDERR_LINE_BYTES); default 8192')
  .option('--stderr-lines-per-window', 'Distinct backend stderr lines logged per window (AGENT_STDERR_LINES_PER_WINDOW); default 20')
  .option('--stderr-window-seconds', 'Window of that quota, seconds (AGENT_STDERR_WINDOW_SECONDS); default 10')
  .option('--stderr-summary-interval-seconds', 'Repeated and suppressed line summaries at most this often, seconds (AGENT_STDERR_SUMMARY_INTERVAL_SECONDS); default 5')
  .option('--stderr-queue-high-water-bytes', 'A backend\'s stderr pipe is paused beyond this many queued bytes (AGENT_STDERR_QUEUE_HIGH_WATER_BYTES); default 1048576')
  .action(async (flags: Record<string, unknown>) => {
    // sade fills defaults in; drop them so AGENT_* variables can apply when a flag is absent.
    const given = new Set(process.argv.slice(2).map((a) => a.replace(/^--?/, '').split('=')[0]));
    const explicit = Object.fromEntries(Object.entries(flags).filter(([k]) => given.has(k) || k === 'reload' || k === 'http'));
    let options;
    try {
      options = parseServeOptions(explicit, process.env);
    } catch (error) {
      if (error instanceof UsageError) usageError(error.message);
      throw error;
    }
    // Signals are heard from the start: one that comes while the service starts stops it the usual
    // way once it is up (the requests read by then get their line), not the process at once.
    let service: Awaited<ReturnType<typeof serve>> | null = null;
    let early: NodeJS.Signals | null = null;
    let firstSignalAt: number | null = null;
    let killing = false;
    // Once a second signal has come, the exit code is 1 whichever path exits first.
    const exit = (code: number) => process.exit(killing ? EXIT_RUNTIME : code);
    const onSignal = (signal: NodeJS.Signals) => {
      // A copy of the first that comes with it (npm passes Ctrl-C on to a service the terminal
      // already signalled) is not a second signal; nor is anything after the second.
      if (killing || (firstSignalAt !== null && Date.now() - firstSignalAt < REPEAT_SIGNAL_MS)) return;
      const second = firstSignalAt !== null;
      firstSignalAt ??= Date.now();
      // A second signal: no more waiting, but nothing is left behind either.
      if (second) {
        killing = true;
        process.exitCode = EXIT_RUNTIME;
        if (service) return void service.kill(signal).finally(() => exit(EXIT_RUNTIME));
        process.stderr.write(`agent: second ${signal} while starting: exiting now with code 1 (backends started so far are ended by the next service's orphan sweep)\n`);
        return exit(EXIT_RUNTIME);
      }
      if (!service) return void (early = signal);
      void service.shutdown(signal).then(exit, () => exit(EXIT_RUNTIME));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      service = await serve(options);
    } catch (error) {
      process.stderr.write(`agent: could not start: ${(error as Error).message}\n`);
      process.exit(EXIT_RUNTIME);
    }
    const running = service;
    void running.done.then(exit);
    if (early) void running.shutdown(early).then(exit, () => exit(EXIT_RUNTIME));
  });

// Prints a command's result and exits with its code once both are written: a pipe takes 64 KiB
// at once, and process.exit() drops what waits behind that (`status --json | jq` of 500 servers).
async function finish(result: CommandResult): Promise<never> {
  await Promise.all([writeOut(process.stdout, result.stdout), writeOut(process.stderr, result.stderr)]);
  process.exit(result.code);
}

function writeOut(stream: NodeJS.WriteStream, text: string): Promise<void> {
  // A reader that went away (`| head`) ends the wait too: there is nothing left to write to.
  if (!text) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('error', () => resolve());
    stream.write(text, () => resolve());
  });
}

// `agent mcp ...`: registered from the command table (lib/cli/mcp-grammar.ts); sade passes the
// positional arguments, then the flags. The commands are loaded when run: `agent serve` never
// loads them (they validate configuration with zod, which stays off the service's main thread).
const mcp = () => import('../lib/cli/mcp-commands.ts');
const tools = () => import('../lib/cli/tools-commands.ts');
const MCP_ACTIONS: Record<string, (args: (string | undefined)[], flags: Record<string, unknown>) => Promise<CommandResult>> = {
  'mcp status': async ([server], flags) => (await mcp()).statusCommand(server, flags as StatusFlags),
  'mcp restart': async ([server], flags) => (await mcp()).restartCommand(server!, flags as LocationFlags),
  'mcp reload': async (_, flags) => (await mcp()).reloadCommand(flags as LocationFlags),
  'mcp tools list': async ([server], flags) => (await tools()).toolsListCommand(server!, flags as ToolsListFlags),
  'mcp tools disable': async ([server, tool], flags) => (await tools()).toolsEditCommand('disable', server!, tool!, flags as ToolsEditFlags),
  'mcp tools enable': async ([server, tool], flags) => (await tools()).toolsEditCommand('enable', server!, tool!, flags as LocationFlags),
};
for (const command of MCP_COMMANDS) {
  const run = MCP_ACTIONS[commandName(command)]!;
  prog.command(synopsis(command)).describe(command.describe);
  for (const flag of command.flags) prog.option(`--${flag.name}`, flag.describe);
  prog.action(async (...params: unknown[]) => {
    const flags = params.pop() as Record<string, unknown>;
    // mri may hand over a numeric-looking argument as a number.
    await finish(await run(params.map((p) => (p === undefined ? undefined : String(p))), flags));
  });
}

// sade has no command groups and is lenient with arguments: `agent mcp ...` lines are checked first.
const line = readMcpCommandLine(process.argv.slice(2));
if (line?.kind === 'help') await finish({ code: 0, stdout: line.text, stderr: '' });
if (line?.kind === 'usage') await finish({ code: EXIT_USAGE, stdout: '', stderr: `agent: ${line.message}\nRun \`${line.help}\` for usage.\n` });
// Help and usage errors have exited above (finish awaits its writes).
const mcpLine = line?.kind === 'help' || line?.kind === 'usage' ? null : line;

const serveLine = !mcpLine && process.argv[2] === 'serve' ? serveArgv(process.argv.slice(2)) : null;
prog.parse(mcpLine ? [...process.argv.slice(0, 2), ...mcpLine.argv] : serveLine ? [...process.argv.slice(0, 2), ...serveLine.argv] : process.argv, {
  ...(mcpLine ? { boolean: mcpLine.boolean, string: mcpLine.string } : serveLine ? { string: serveLine.string } : {}),
  unknown: (flag: string) => usageError(`Unknown option ${flag}`),
});
