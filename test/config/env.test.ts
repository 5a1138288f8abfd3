import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  buildChildEnv,
  type ChildEnvInput,
  type EnvSources,
  lookup,
  referencedNames,
  substitute,
  UndefinedVariableError,
} from '../../lib/config/env.ts';

const BASE = { HOME: '/home/ann', LOGNAME: 'ann', PATH: '/usr/bin:/bin', SHELL: '/bin/bash', TERM: 'xterm', USER: 'ann' };

const SOURCES: EnvSources = {
  parent: {
    ...BASE,
    SECRET: 's3',
    AWS_REGION: 'eu-west-1',
    AWS_KEY: 'ak',
    NODE_ENV: 'development',
    SHARED: 'from-parent',
    EMPTY: '',
    UNSET: undefined,
  },
  runtimeScope: { SCOPE_ONLY: 'from-scope', SHARED: 'from-scope', UNSET: 'scope-fills-unset' },
  platform: 'linux',
};

const ALL_INHERITED = {
  ...BASE,
  SECRET: 's3',
  AWS_REGION: 'eu-west-1',
  AWS_KEY: 'ak',
  NODE_ENV: 'development',
  SHARED: 'from-parent',
  EMPTY: '',
  SCOPE_ONLY: 'from-scope',
  UNSET: 'scope-fills-unset',
};

function without<T extends Record<string, string>>(obj: T, ...keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
}

function run(input: Partial<ChildEnvInput>, expected: Record<string, string>, sources: EnvSources = SOURCES): void {
  const full: ChildEnvInput = { env: undefined, inheritParentEnv: false, envFilter: [], ...input };
  assert.equal(buildChildEnv(full, sources, 'mcpServers.s'), expected);
}

const childCases: Array<[name: string, input: Partial<ChildEnvInput>, expected: Record<string, string>]> = [
  // base set
  ['base set only by default', {}, BASE],
  ['envFilter without inheritParentEnv never adds parent variables', { envFilter: ['AWS_*', 'SECRET'] }, BASE],
  ['!NAME removes a base variable', { envFilter: ['!HOME'] }, without(BASE, 'HOME')],
  ['!PREFIX_* removes matching base variables', { envFilter: ['!SH*', '!LOG*'] }, without(BASE, 'SHELL', 'LOGNAME')],

  // inheritParentEnv
  ['inheritParentEnv adds every parent variable and the Runtime Scope', { inheritParentEnv: true }, ALL_INHERITED],
  ['envFilter NAME selects one inherited variable, base set kept', { inheritParentEnv: true, envFilter: ['NODE_ENV'] }, { ...BASE, NODE_ENV: 'development' }],
  ['envFilter PREFIX_* selects by prefix', { inheritParentEnv: true, envFilter: ['AWS_*'] }, { ...BASE, AWS_REGION: 'eu-west-1', AWS_KEY: 'ak' }],
  ['several positive patterns combine', { inheritParentEnv: true, envFilter: ['AWS_R*', 'SCOPE_ONLY'] }, { ...BASE, AWS_REGION: 'eu-west-1', SCOPE_ONLY: 'from-scope' }],
  ['!NAME excludes one variable, everything else inherited', { inheritParentEnv: true, envFilter: ['!SECRET'] }, without(ALL_INHERITED, 'SECRET')],
  ['!PREFIX_* excludes by prefix', { inheritParentEnv: true, envFilter: ['!AWS_*'] }, without(ALL_INHERITED, 'AWS_REGION', 'AWS_KEY')],
  ['positive and negative patterns: ! always excludes', { inheritParentEnv: true, envFilter: ['AWS_*', '!AWS_KEY'] }, { ...BASE, AWS_REGION: 'eu-west-1' }],
  ['a ! pattern naming a base variable removes it even with inheritance', { inheritParentEnv: true, envFilter: ['NODE_ENV', '!PATH'] }, { ...without(BASE, 'PATH'), NODE_ENV: 'development' }],
  ['patterns are case-sensitive on POSIX', { inheritParentEnv: true, envFilter: ['aws_*'] }, BASE],
  ['a bare * selects everything', { inheritParentEnv: true, envFilter: ['*'] }, ALL_INHERITED],

  // declared env
  ['declared object env is added', { env: { MODE: 'prod' } }, { ...BASE, MODE: 'prod' }],
  ['declared env wins over inherited and base values', { inheritParentEnv: true, envFilter: ['NODE_ENV'], env: { HOME: '/srv', NODE_ENV: 'production' } }, { ...BASE, HOME: '/srv', NODE_ENV: 'production' }],
  ['declared env wins over a ! exclusion', { envFilter: ['!HOME'], env: { HOME: '/srv' } }, { ...without(BASE, 'HOME'), HOME: '/srv' }],
  ['declared env may reference a variable envFilter does not list', { inheritParentEnv: true, envFilter: ['NODE_ENV', '!SECRET'], env: { TOKEN: '${SECRET}' } }, { ...BASE, NODE_ENV: 'development', TOKEN: 's3' }],
  ['a merely referenced variable does not reach the child', { env: { URL: 'https://x/?k=$AWS_KEY' } }, { ...BASE, URL: 'https://x/?k=ak' }],
  ['object env values are substituted from the Runtime Scope', { env: { A: '${SCOPE_ONLY}', B: '$SHARED' } }, { ...BASE, A: 'from-scope', B: 'from-parent' }],

  // array env
  ['array KEY=value entries', { env: ['A=1', 'B=two words', 'C=x=y', 'D='] }, { ...BASE, A: '1', B: 'two words', C: 'x=y', D: '' }],
  ['array bare KEY copies the parent value', { env: ['SECRET', 'NODE_ENV'] }, { ...BASE, SECRET: 's3', NODE_ENV: 'development' }],
  ['array bare KEY copies a Runtime Scope value', { env: ['SCOPE_ONLY'] }, { ...BASE, SCOPE_ONLY: 'from-scope' }],
  ['array bare KEY prefers the parent over the Runtime Scope', { env: ['SHARED'] }, { ...BASE, SHARED: 'from-parent' }],
  ['array bare KEY undefined everywhere is left out', { env: ['NOWHERE'] }, BASE],
  ['array bare KEY defined as an empty string is copied', { env: ['EMPTY'] }, { ...BASE, EMPTY: '' }],
  ['array KEY=value entries are substituted', { env: ['A=${SCOPE_ONLY}/$USER', 'B=$$literal'] }, { ...BASE, A: 'from-scope/ann', B: '$literal' }],
  ['array entries win over inherited values, later entries win', { inheritParentEnv: true, envFilter: ['NODE_ENV'], env: ['NODE_ENV=test', 'X=1', 'X=2'] }, { ...BASE, NODE_ENV: 'test', X: '2' }],
];

for (const [name, input, expected] of childCases) {
  test(`env :: buildChildEnv ${name}`, () => run(input, expected));
}

test('env :: buildChildEnv base set takes only variables the parent has', () => {
  run({}, { PATH: '/bin' }, { parent: { PATH: '/bin', OTHER: 'x' }, runtimeScope: { HOME: '/scope-home' }, platform: 'linux' });
});

test('env :: buildChildEnv Windows base set, names matched case-insensitively', () => {
  const sources: EnvSources = {
    parent: { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\ann', TEMP: 'C:\\Temp', HOME: 'C:\\h', Foo_Bar: '1' },
    runtimeScope: {},
    platform: 'win32',
  };
  run({}, { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\ann', TEMP: 'C:\\Temp' }, sources);
  run({ envFilter: ['!path', '!temp'] }, { SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\ann' }, sources);
  run({ inheritParentEnv: true, envFilter: ['foo_*'] }, { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\ann', TEMP: 'C:\\Temp', Foo_Bar: '1' }, sources);
});

test('env :: buildChildEnv undefined reference in object env names variable and field', () => {
  try {
    buildChildEnv({ env: { OK: '$HOME', TOKEN: 'Bearer ${MISSING_TOKEN}' }, inheritParentEnv: false, envFilter: [] }, SOURCES, 'mcpServers.github');
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UndefinedVariableError);
    const e = error as UndefinedVariableError;
    assert.is(e.variable, 'MISSING_TOKEN');
    assert.is(e.field, 'mcpServers.github.env.TOKEN');
    assert.is(e.message, 'undefined variable `MISSING_TOKEN` referenced in mcpServers.github.env.TOKEN');
  }
});

test('env :: buildChildEnv undefined reference in array env names the element', () => {
  try {
    buildChildEnv({ env: ['A=1', 'B=$NOPE'], inheritParentEnv: false, envFilter: [] }, SOURCES, 'mcpServers.s');
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UndefinedVariableError);
    assert.is((error as UndefinedVariableError).variable, 'NOPE');
    assert.is((error as UndefinedVariableError).field, 'mcpServers.s.env[1]');
  }
});

const substituteCases: Array<[input: string, expected: string]> = [
  ['no references', 'no references'],
  ['$HOME/bin', '/home/ann/bin'],
  ['${HOME}/bin', '/home/ann/bin'],
  ['${HOME}_DIR', '/home/ann_DIR'],
  ['$USER@$NODE_ENV', 'ann@development'],
  ['$HOME$USER', '/home/annann'],
  ['$$', '$'],
  ['$$HOME', '$HOME'],
  ['$${HOME}', '${HOME}'],
  ['$$$HOME', '$/home/ann'],
  ['price: 5$', 'price: 5$'],
  ['costs $5', 'costs $5'],
  ['$SCOPE_ONLY', 'from-scope'],
  ['${SHARED}', 'from-parent'],
  ['[$EMPTY]', '[]'],
  ['$UNSET', 'scope-fills-unset'],
  ['', ''],
];

for (const [input, expected] of substituteCases) {
  test(`env :: substitute ${JSON.stringify(input)}`, () => {
    assert.is(substitute(input, 'mcpServers.s.args[0]', SOURCES), expected);
  });
}

const undefinedCases: Array<[input: string, variable: string]> = [
  ['${NOPE}', 'NOPE'],
  ['prefix-$NOPE-suffix', 'NOPE'],
  ['$HOME_DIR', 'HOME_DIR'],
  ['$HOME/${lower_case}', 'lower_case'],
];

for (const [input, variable] of undefinedCases) {
  test(`env :: substitute undefined reference ${JSON.stringify(input)}`, () => {
    assert.throws(
      () => substitute(input, 'mcpServers.web.url', SOURCES),
      (error: unknown) => error instanceof UndefinedVariableError && error.variable === variable && error.field === 'mcpServers.web.url',
    );
  });
}

test('env :: lookup prefers the parent, falls back to the Runtime Scope', () => {
  assert.is(lookup('SHARED', SOURCES), 'from-parent');
  assert.is(lookup('SCOPE_ONLY', SOURCES), 'from-scope');
  assert.is(lookup('EMPTY', SOURCES), '');
  assert.is(lookup('NOWHERE', SOURCES), undefined);
});

test('env :: referencedNames lists $NAME and ${NAME}, not $$', () => {
  assert.equal(referencedNames('$A ${B_1} $$C $$ ${D}x $9'), ['A', 'B_1', 'D']);
});

test.run();
