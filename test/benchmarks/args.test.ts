// The benchmark scripts' command line: `--help` and unknown arguments stop a script before a run
// of many minutes starts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { argProblem, type ArgSpec } from '../../benchmarks/lib/args.ts';
import { ROOT } from '../../benchmarks/lib/service.ts';

const spec: ArgSpec = { usage: 'x.ts [--quick] [--rounds <n>] [MB]', flags: ['--quick'], options: ['--rounds'], positionals: 1, passThrough: true };

const cases: [string[], string | null][] = [
  [[], null],
  [['--quick', '--rounds', '2', '20'], null],
  [['--rounds', '--quick'], null], // a value may look like a flag; the script reads it as the value
  [['--help'], 'help'],
  [['-h'], 'help'],
  [['--quick', '--help'], 'help'],
  [['--quik'], 'unknown argument "--quik"; known: --quick, --rounds <value>, --help'],
  [['20', '30'], 'unknown argument "30"; known: --quick, --rounds <value>, --help'],
  [['--rounds'], '--rounds needs a value'],
  [['--quick', '--', '--anything', '--help'], null], // after `--`: passed on
];

for (const [argv, expected] of cases) {
  test(`args :: ${JSON.stringify(argv)} → ${expected}`, () => {
    assert.is(argProblem(spec, argv), expected);
  });
}

test('args :: without passThrough `--` is an unknown argument', () => {
  assert.is(argProblem({ usage: '', flags: ['--quick'] }, ['--', '--quick']), 'unknown argument "--"; known: --quick, --help');
});

for (const script of ['run.ts', 'stderr.ts']) {
  test(`args :: benchmarks/${script} --help prints the usage and exits 0; a typo exits 2 naming it`, () => {
    const help = spawnSync(process.execPath, ['--import', 'tsx', `benchmarks/${script}`, '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    assert.is(help.status, 0);
    assert.match(help.stdout, new RegExp(`^usage: node --import tsx benchmarks/${script.replace('.', '\\.')} \\[--quick\\]`));
    const typo = spawnSync(process.execPath, ['--import', 'tsx', `benchmarks/${script}`, '--quik'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    assert.is(typo.status, 2);
    assert.match(typo.stderr, /^unknown argument "--quik"; known: --quick, /);
  });
}

test.run();
