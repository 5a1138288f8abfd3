// Checks an `agent mcp ...` command line against the command table before sade parses it:
// sade has no command groups, answers a missing argument with exit 1 and ignores extra ones.
// Here every missing or extra argument, unknown option or option without its value is a usage
// error (exit 2, decisions §2) naming it, and `agent mcp --help` / `agent mcp tools --help`
// list their commands. Pure.
import { argsSynopsis, commandName, type McpCommand, MCP_COMMANDS, MCP_GROUPS, summary, synopsis } from './mcp-grammar.ts';

export type McpCommandLine =
  /** Group help, printed on stdout, exit 0. */
  | { kind: 'help'; text: string }
  /** A usage error; `help` is the command line that shows the usage. */
  | { kind: 'usage'; message: string; help: string }
  /** A well-formed command: sade parses `argv` (command words first) with these boolean and string flags. */
  | { kind: 'command'; command: McpCommand; argv: string[]; boolean: string[]; string: string[] };

type Flag = { name: string; given: string; value: string | undefined };

const VALUE_FLAGS = new Set(MCP_COMMANDS.flatMap((c) => c.flags.filter((f) => f.value !== undefined).map((f) => f.name)));
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((w, i) => w === b[i]);
const quoted = (values: string[]) => values.map((v) => JSON.stringify(v)).join(' ');

// Positionals (with their index in `args`) and flags, split the way mri splits them.
function scan(args: readonly string[]): { positionals: { word: string; index: number }[]; flags: Flag[]; help: boolean } {
  const positionals: { word: string; index: number }[] = [];
  const flags: Flag[] = [];
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      for (let j = i + 1; j < args.length; j++) positionals.push({ word: args[j]!, index: j });
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push({ word: arg, index: i });
      continue;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    let value = eq === -1 ? undefined : body.slice(eq + 1);
    // As mri does: a value flag takes the next argument unless that looks like a flag.
    if (value === undefined && VALUE_FLAGS.has(name) && i + 1 < args.length && !args[i + 1]!.startsWith('-')) value = args[++i];
    flags.push({ name: arg.startsWith('--') ? name : arg, given: arg, value });
  }
  return { positionals, flags, help };
}

// The commands and groups one word below `words`, with their usage and one-line summary.
function children(words: string[]): { word: string; usage: string; summary: string }[] {
  const below = (w: string[]) => w.length === words.length + 1 && same(w.slice(0, -1), words);
  return [
    ...MCP_COMMANDS.filter((c) => below(c.words)).map((c) => ({ word: c.words.at(-1)!, usage: [c.words.at(-1)!, argsSynopsis(c)].filter(Boolean).join(' '), summary: summary(c.describe) })),
    ...MCP_GROUPS.filter((g) => below(g.words)).map((g) => ({ word: g.words.at(-1)!, usage: `${g.words.at(-1)!} <command>`, summary: summary(g.describe) })),
  ];
}

/** What `agent <group> --help` prints. */
export function groupHelp(words: string[]): string {
  const group = MCP_GROUPS.find((g) => same(g.words, words))!;
  const rows = children(words);
  const width = Math.max(...rows.map((r) => r.usage.length)) + 4;
  return [
    `Usage: agent ${words.join(' ')} <command> [options]`,
    '',
    group.describe,
    '',
    'Commands:',
    ...rows.map((r) => `  ${r.usage.padEnd(width)}${r.summary}`),
    '',
    `Run \`agent ${words.join(' ')} <command> --help\` for the arguments and options of a command.`,
    '',
  ].join('\n');
}

function checkFlags(command: McpCommand, flags: Flag[]): string | null {
  const name = `\`agent ${commandName(command)}\``;
  for (const flag of flags) {
    const spec = command.flags.find((f) => f.name === flag.name || (f.value === undefined && `no-${f.name}` === flag.name));
    if (!spec) return `Unknown option ${flag.given} for ${name}; expected ${command.flags.map((f) => `--${f.name}`).join(', ')} or --help`;
    if (spec.value === undefined && flag.value !== undefined) return `Expected --${spec.name} without a value, got ${JSON.stringify(flag.value)}`;
    if (spec.value !== undefined) {
      const count = flags.filter((f) => f.name === spec.name).length;
      const got = count > 1 ? `it ${count} times` : flag.value === undefined ? 'no value' : flag.value === '' ? 'an empty value' : null;
      if (got) return `Expected --${spec.name} to be given once with a value (--${spec.name} <${spec.value}>), got ${got}`;
    }
  }
  return null;
}

function checkArgs(command: McpCommand, given: string[]): string | null {
  const usage = `agent ${synopsis(command)}`;
  const required = command.args.filter((a) => !a.optional);
  if (given.length < required.length) return `Missing ${required.slice(given.length).map((a) => `<${a.name}>`).join(' and ')}: ${usage}`;
  if (given.length > command.args.length) return `Too many arguments (${quoted(given.slice(command.args.length))}): ${usage}`;
  const blank = given.findIndex((g) => !g.trim());
  if (blank !== -1) return `\`${usage}\` needs a non-empty ${command.args[blank]!.name} name`;
  return null;
}

/** Reads `args` (the arguments after the script); null when it is not an `agent mcp` command line. */
export function readMcpCommandLine(args: readonly string[]): McpCommandLine | null {
  const { positionals, flags, help } = scan(args);
  if (positionals[0]?.word !== 'mcp') return null;
  let words = ['mcp'];
  while (MCP_GROUPS.some((g) => same(g.words, words))) {
    const next = positionals[words.length]?.word;
    const known = children(words).map((c) => c.word);
    const group = `agent ${words.join(' ')}`;
    if (next === undefined) return help ? { kind: 'help', text: groupHelp(words) } : { kind: 'usage', message: `\`${group}\` needs a command: ${known.join(', ')}`, help: `${group} --help` };
    if (!known.includes(next)) return { kind: 'usage', message: `Unknown command \`${group} ${next}\`; expected ${known.join(', ')}`, help: `${group} --help` };
    words = [...words, next];
  }
  const command = MCP_COMMANDS.find((c) => same(c.words, words))!;
  const wordIndexes = new Set(positionals.slice(0, words.length).map((p) => p.index));
  const argv = [...words, ...args.filter((_, i) => !wordIndexes.has(i))];
  const parsed = {
    kind: 'command' as const,
    command,
    argv,
    boolean: command.flags.filter((f) => f.value === undefined).map((f) => f.name),
    string: command.flags.filter((f) => f.value !== undefined).map((f) => f.name),
  };
  // `agent mcp status --help` is sade's to answer.
  if (help) return parsed;
  const problem = checkFlags(command, flags) ?? checkArgs(command, positionals.slice(words.length).map((p) => p.word));
  return problem ? { kind: 'usage', message: problem, help: `agent ${commandName(command)} --help` } : parsed;
}
