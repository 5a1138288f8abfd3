// The `agent mcp ...` commands as data: words, arguments, flags and description. bin/agent.ts
// registers them with sade from this table; command-line.ts checks a command line against it
// and prints the help of the command groups (`agent mcp`, `agent mcp tools`), which sade lacks.

export type FlagSpec = {
  name: string;
  /** The placeholder of a flag that takes a value (`--config <file>`); absent for a boolean flag. */
  value?: string;
  describe: string;
};
export type ArgSpec = { name: string; optional?: boolean };
export type McpCommand = { words: string[]; args: ArgSpec[]; flags: FlagSpec[]; describe: string };
export type McpGroup = { words: string[]; describe: string };

const LOCATION: FlagSpec[] = [
  { name: 'config', value: 'file', describe: 'Configuration file (AGENT_CONFIG); default <config-dir>/mcp.json' },
  { name: 'config-dir', value: 'dir', describe: 'Configuration directory (AGENT_CONFIG_DIR); default ~/.config/agent' },
  { name: 'state-dir', value: 'dir', describe: "The service's --state-dir (AGENT_STATE_DIR), where its control socket is; default the configuration directory" },
];
const JSON_OUTPUT: FlagSpec = { name: 'json', describe: 'Machine-readable output' };
const SERVER: ArgSpec = { name: 'server' };

export const MCP_GROUPS: McpGroup[] = [
  { words: ['mcp'], describe: 'Operate the running service and its mcp.json: backend status, restarts, reloads and tool rules.' },
  { words: ['mcp', 'tools'], describe: 'List the tools of a server, and disable or enable them in mcp.json.' },
];

export const MCP_COMMANDS: McpCommand[] = [
  {
    words: ['mcp', 'status'],
    args: [{ name: 'server', optional: true }],
    flags: [
      ...LOCATION,
      JSON_OUTPUT,
      { name: 'verbose', describe: "Also show each server's effective merged configuration (* = from serverDefaults)" },
      { name: 'show-secrets', describe: 'With --verbose: show real values instead of $VAR references as written and ****' },
    ],
    describe: 'Live state of each backend from the running service; the configured view when none runs.',
  },
  { words: ['mcp', 'restart'], args: [SERVER], flags: LOCATION, describe: 'Restart a backend of the running service at once (also from crash loop).' },
  { words: ['mcp', 'reload'], args: [], flags: LOCATION, describe: 'Make the running service reload its configuration now.' },
  {
    words: ['mcp', 'tools', 'list'],
    args: [SERVER],
    flags: [...LOCATION, { name: 'disabled', describe: 'Only disabled tools' }, JSON_OUTPUT],
    describe: 'Tools of a server: the live inventory (enabled/disabled, effective descriptions) from the running service; the configured rules when none runs.',
  },
  {
    words: ['mcp', 'tools', 'disable'],
    args: [SERVER, { name: 'tool' }],
    flags: [...LOCATION, { name: 'force', describe: 'Record a tool the connected backend does not have (now) anyway' }],
    describe:
      "Add a tool to the server's disabledTools in mcp.json (logical or <server>_agent_<tool> name). " +
      'With the service running and the backend connected, a tool it does not have is refused (closest names listed) unless --force. ' +
      'A running service applies the change without restarting the backend.',
  },
  {
    words: ['mcp', 'tools', 'enable'],
    args: [SERVER, { name: 'tool' }],
    flags: LOCATION,
    describe: "Remove a tool from the server's disabledTools in mcp.json (both its logical and qualified names). A running service applies it without restarting the backend.",
  },
];

/** `mcp tools disable`: the key of a command. */
export const commandName = (c: { words: string[] }): string => c.words.join(' ');

/** The arguments as usage shows them: `<server> <tool>`, `[server]`. */
export const argsSynopsis = (c: McpCommand): string => c.args.map((a) => (a.optional ? `[${a.name}]` : `<${a.name}>`)).join(' ');

/** The sade pattern of a command: `mcp tools disable <server> <tool>`. */
export const synopsis = (c: McpCommand): string => [commandName(c), argsSynopsis(c)].filter(Boolean).join(' ');

/** The first sentence of a description (the one-line summary sade also lists). */
export const summary = (describe: string): string => describe.split(/(?<=[.?!])\s+(?=[A-Z])/)[0]!;
