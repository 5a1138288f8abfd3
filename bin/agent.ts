#!/usr/bin/env node
// The `agent` command line: parses, calls lib/, prints, and sets the exit code.
import sade from 'sade';
import { type CommandResult, type LocationFlags, reloadCommand, restartCommand, type StatusFlags, statusCommand } from '../lib/cli/mcp-commands.ts';
import { parseServeOptions, UsageError } from '../lib/cli/serve-options.ts';
import { type ToolsListFlags, toolsEditCommand, toolsListCommand, toolsUsageProblem } from '../lib/cli/tools-commands.ts';
import { serve } from '../lib/main/serve.ts';
import { SERVICE_VERSION } from '../lib/shared/version.ts';

const EXIT_RUNTIME = 1;
const EXIT_USAGE = 2;

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
    let service;
    try {
      service = await serve(options);
    } catch (error) {
      process.stderr.write(`agent: could not start: ${(error as Error).message}\n`);
      process.exit(EXIT_RUNTIME);
    }
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals > 1) process.exit(EXIT_RUNTIME);
      void service.shutdown(signal).then(() => process.exit(0));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    void service.done.then(() => process.exit(0));
  });

// Prints a command's result and exits with its code.
function finish(result: CommandResult): never {
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exit(result.code);
}

prog
  .command('mcp status [server]')
  .describe('Live state of each backend from the running service; the configured view when none runs.')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .option('--json', 'Machine-readable output')
  .option('--verbose', 'Also show each server\'s effective merged configuration (* = from serverDefaults)')
  .option('--show-secrets', 'With --verbose: show real values instead of $VAR references as written and ****')
  .action(async (server: string | undefined, flags: Record<string, unknown>) => finish(await statusCommand(server, flags as StatusFlags)));

prog
  .command('mcp restart <server>')
  .describe('Restart a backend of the running service at once (also from crash loop).')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .action(async (server: string, flags: Record<string, unknown>) => finish(await restartCommand(server, flags as LocationFlags)));

prog
  .command('mcp reload')
  .describe('Make the running service reload its configuration now.')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .action(async (flags: Record<string, unknown>) => finish(await reloadCommand(flags as LocationFlags)));

prog
  .command('mcp tools list <server>')
  .describe('Tools of a server: the live inventory (enabled/disabled, effective descriptions) from the running service; the configured rules when none runs.')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .option('--disabled', 'Only disabled tools')
  .option('--json', 'Machine-readable output')
  .action(async (server: string, flags: Record<string, unknown>) => finish(await toolsListCommand(server, flags as ToolsListFlags)));

prog
  .command('mcp tools disable <server> <tool>')
  .describe('Add a tool to the server\'s disabledTools in mcp.json (logical or <server>_agent_<tool> name); a running service applies it without restarting the backend.')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .action(async (server: string, tool: string, flags: Record<string, unknown>) => finish(await toolsEditCommand('disable', server, tool, flags as LocationFlags)));

prog
  .command('mcp tools enable <server> <tool>')
  .describe('Remove a tool from the server\'s disabledTools in mcp.json (both its logical and qualified names); a running service applies it without restarting the backend.')
  .option('--config', 'Configuration file (AGENT_CONFIG)')
  .option('--config-dir', 'Configuration directory (AGENT_CONFIG_DIR)')
  .action(async (server: string, tool: string, flags: Record<string, unknown>) => finish(await toolsEditCommand('enable', server, tool, flags as LocationFlags)));

// sade answers a missing argument with exit 1; for `agent mcp tools ...` it is a usage error (2).
const toolsProblem = toolsUsageProblem(process.argv.slice(2));
if (toolsProblem) usageError(toolsProblem);

prog.parse(process.argv, {
  unknown: (flag: string) => usageError(`Unknown option ${flag}`),
});
