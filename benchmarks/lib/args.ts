// The benchmark scripts' command line: `--name <number>`, `--name <text>` and flags. Each script
// declares what it takes: `--help` prints its usage and exits 0, an argument it does not take is an
// error naming it and the known ones (exit 2), instead of starting a run of many minutes.
import type { Entry } from './service.ts';

export type ArgSpec = {
  /** The usage line(s), from `node --import tsx benchmarks/...`. */
  usage: string;
  /** Arguments taken alone (`--quick`). */
  flags?: string[];
  /** Arguments followed by a value (`--rounds 2`). */
  options?: string[];
  /** How many arguments not starting with `-` it takes (`worker-rss.ts 10 empty,client`). */
  positionals?: number;
  /** Whatever follows `--` is passed on (scale.ts: serve flags). */
  passThrough?: boolean;
};

/** What is wrong with `argv` for `spec`: 'help', an error message, or null when nothing is. */
export function argProblem(spec: ArgSpec, argv: string[]): 'help' | string | null {
  let positionals = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--' && spec.passThrough) break;
    if (arg === '--help' || arg === '-h') return 'help';
    if (spec.flags?.includes(arg)) continue;
    if (spec.options?.includes(arg)) {
      if (i + 1 >= argv.length) return `${arg} needs a value`;
      i++;
      continue;
    }
    if (!arg.startsWith('-') && positionals < (spec.positionals ?? 0)) {
      positionals++;
      continue;
    }
    const known = [...(spec.flags ?? []), ...(spec.options ?? []).map((o) => `${o} <value>`), '--help'];
    return `unknown argument ${JSON.stringify(arg)}; known: ${known.join(', ')}`;
  }
  return null;
}

/** Checks the command line against `spec`: prints the usage and exits on `--help` (0) or a problem (2). */
export function checkArgs(spec: ArgSpec, argv = process.argv.slice(2)): void {
  const problem = argProblem(spec, argv);
  if (problem === null) return;
  if (problem === 'help') {
    process.stdout.write(`usage: ${spec.usage}\n`);
    process.exit(0);
  }
  process.stderr.write(`${problem}\nusage: ${spec.usage}\n`);
  process.exit(2);
}

export function scriptArgs(spec: ArgSpec, argv = process.argv.slice(2)) {
  checkArgs(spec, argv);
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    has: (name: string) => argv.includes(name),
    number: (name: string, fallback: number) => (value(name) === undefined ? fallback : Number(value(name))),
    text: value,
    /** `--source`: run bin/agent.ts through tsx; otherwise the tsc build (what the suite runs). */
    entry: (argv.includes('--source') ? 'source' : 'dist') as Entry,
  };
}
