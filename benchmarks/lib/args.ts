// The small benchmark scripts' command line: `--name <number>`, `--name <text>` and flags.
import type { Entry } from './service.ts';

export function scriptArgs(argv = process.argv.slice(2)) {
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
