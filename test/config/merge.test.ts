import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeServerDefaults } from '../../lib/config/merge.ts';
import type { ServerDefaults, ServerEntry } from '../../lib/config/schema.ts';

type Case = {
  defaults: ServerDefaults | undefined;
  server: ServerEntry;
  stdio: boolean;
  entry: ServerEntry;
  /** Keys reported as coming from serverDefaults (order-insensitive). */
  inherited: string[];
};

function run(input: Omit<Case, 'entry' | 'inherited'>, expected: Pick<Case, 'entry' | 'inherited'>): void {
  const defaultsBefore = structuredClone(input.defaults);
  const serverBefore = structuredClone(input.server);
  const result = mergeServerDefaults(input.defaults, input.server, input.stdio);
  assert.equal(result.entry, expected.entry);
  assert.equal([...result.inherited].sort(), [...expected.inherited].sort());
  // Merging never mutates its inputs.
  assert.equal(input.defaults, defaultsBefore);
  assert.equal(input.server, serverBefore);
}

const stdio = { command: 'node' } as const;
const http = { url: 'http://example.test/mcp' } as const;

const cases: Array<[name: string, input: Omit<Case, 'entry' | 'inherited'>, expected: Pick<Case, 'entry' | 'inherited'>]> = [
  // no defaults at all
  ['no serverDefaults: entry unchanged', { defaults: undefined, server: { ...stdio, env: { A: '1' } }, stdio: true }, { entry: { ...stdio, env: { A: '1' } }, inherited: [] }],
  ['empty serverDefaults: entry unchanged', { defaults: {}, server: { ...stdio, timeout: 5 }, stdio: true }, { entry: { ...stdio, timeout: 5 }, inherited: [] }],

  // rule 1: env objects merged, server keys win
  ['rule 1 :: env objects merged, server overrides', { defaults: { env: { A: 'd', B: 'd' } }, server: { ...stdio, env: { B: 's', C: 's' } }, stdio: true }, { entry: { ...stdio, env: { A: 'd', B: 's', C: 's' } }, inherited: ['env'] }],
  ['rule 1 :: server without env inherits the object', { defaults: { env: { A: 'd' } }, server: { ...stdio }, stdio: true }, { entry: { ...stdio, env: { A: 'd' } }, inherited: ['env'] }],
  ['rule 1 :: server env with empty defaults env object', { defaults: { env: {} }, server: { ...stdio, env: { A: 's' } }, stdio: true }, { entry: { ...stdio, env: { A: 's' } }, inherited: ['env'] }],

  // rule 2: env arrays, server's array wins entirely
  ['rule 2 :: env arrays: server array wins entirely', { defaults: { env: ['A=d', 'B=d'] }, server: { ...stdio, env: ['B=s'] }, stdio: true }, { entry: { ...stdio, env: ['B=s'] }, inherited: [] }],
  ['rule 2 :: server empty array still wins', { defaults: { env: ['A=d'] }, server: { ...stdio, env: [] }, stdio: true }, { entry: { ...stdio, env: [] }, inherited: [] }],
  ['rule 2 :: server without env inherits the array', { defaults: { env: ['A=d', 'HOME'] }, server: { ...stdio }, stdio: true }, { entry: { ...stdio, env: ['A=d', 'HOME'] }, inherited: ['env'] }],
  // decisions §10: mixed forms, the server's value replaces
  ['rule 2 :: mixed, object defaults and array server: server replaces', { defaults: { env: { A: 'd' } }, server: { ...stdio, env: ['B=s'] }, stdio: true }, { entry: { ...stdio, env: ['B=s'] }, inherited: [] }],
  ['rule 2 :: mixed, array defaults and object server: server replaces', { defaults: { env: ['A=d'] }, server: { ...stdio, env: { B: 's' } }, stdio: true }, { entry: { ...stdio, env: { B: 's' } }, inherited: [] }],

  // rule 3: envFilter concatenated, defaults first, duplicates once
  ['rule 3 :: envFilter defaults first, then server, duplicates once', { defaults: { envFilter: ['HOME', 'AWS_*'] }, server: { ...stdio, envFilter: ['AWS_*', '!AWS_SECRET', 'NODE_ENV'] }, stdio: true }, { entry: { ...stdio, envFilter: ['HOME', 'AWS_*', '!AWS_SECRET', 'NODE_ENV'] }, inherited: ['envFilter'] }],
  ['rule 3 :: server without envFilter gets the defaults list', { defaults: { envFilter: ['A_*', '!A_KEY'] }, server: { ...stdio }, stdio: true }, { entry: { ...stdio, envFilter: ['A_*', '!A_KEY'] }, inherited: ['envFilter'] }],
  ['rule 3 :: empty defaults envFilter leaves the server list alone', { defaults: { envFilter: [] }, server: { ...stdio, envFilter: ['X'] }, stdio: true }, { entry: { ...stdio, envFilter: ['X'] }, inherited: [] }],
  ['rule 3 :: duplicates inside the defaults list are kept once', { defaults: { envFilter: ['A', 'A', 'B'] }, server: { ...stdio, envFilter: ['B'] }, stdio: true }, { entry: { ...stdio, envFilter: ['A', 'B'] }, inherited: ['envFilter'] }],

  // rule 4: oauth and headers replaced, not merged
  ['rule 4 :: headers replaced by the server value', { defaults: { headers: { 'X-A': 'd', 'X-B': 'd' } }, server: { ...http, headers: { 'X-B': 's' } }, stdio: false }, { entry: { ...http, headers: { 'X-B': 's' } }, inherited: [] }],
  ['rule 4 :: server without headers inherits them', { defaults: { headers: { 'X-A': 'd' } }, server: { ...http }, stdio: false }, { entry: { ...http, headers: { 'X-A': 'd' } }, inherited: ['headers'] }],
  ['rule 4 :: empty server headers still replace', { defaults: { headers: { 'X-A': 'd' } }, server: { ...http, headers: {} }, stdio: false }, { entry: { ...http, headers: {} }, inherited: [] }],
  ['rule 4 :: oauth replaced by the server value', { defaults: { oauth: { clientId: 'd', scope: 'x' } }, server: { ...http, oauth: { clientId: 's' } }, stdio: false }, { entry: { ...http, oauth: { clientId: 's' } }, inherited: [] }],
  ['rule 4 :: server without oauth inherits it', { defaults: { oauth: { clientId: 'd' } }, server: { ...http }, stdio: false }, { entry: { ...http, oauth: { clientId: 'd' } }, inherited: ['oauth'] }],

  // rule 5: scalar settings inherited only when missing, each key independently
  [
    'rule 5 :: each key inherited independently when missing',
    { defaults: { timeout: 1000, connectionTimeout: 2000, requestTimeout: 3000, inheritParentEnv: true, restartOnExit: true, maxRestarts: 7, restartDelay: 500 }, server: { ...stdio, timeout: 9000, maxRestarts: 3 }, stdio: true },
    { entry: { ...stdio, timeout: 9000, connectionTimeout: 2000, requestTimeout: 3000, inheritParentEnv: true, restartOnExit: true, maxRestarts: 3, restartDelay: 500 }, inherited: ['connectionTimeout', 'requestTimeout', 'inheritParentEnv', 'restartOnExit', 'restartDelay'] },
  ],
  [
    'rule 5 :: explicit false and 0 on the server win',
    { defaults: { inheritParentEnv: true, restartOnExit: true, maxRestarts: 5, restartDelay: 500 }, server: { ...stdio, inheritParentEnv: false, restartOnExit: false, maxRestarts: 0, restartDelay: 0 }, stdio: true },
    { entry: { ...stdio, inheritParentEnv: false, restartOnExit: false, maxRestarts: 0, restartDelay: 0 }, inherited: [] },
  ],
  ['rule 5 :: timeouts are inherited by remote servers too', { defaults: { timeout: 1000, connectionTimeout: 2000, requestTimeout: 3000 }, server: { ...http, requestTimeout: 4000 }, stdio: false }, { entry: { ...http, timeout: 1000, connectionTimeout: 2000, requestTimeout: 4000 }, inherited: ['timeout', 'connectionTimeout'] }],

  // rule 6: headers ignored for stdio; inheritParentEnv and envFilter ignored for remote servers
  ['rule 6 :: global headers ignored for stdio', { defaults: { headers: { 'X-A': 'd' } }, server: { ...stdio }, stdio: true }, { entry: { ...stdio }, inherited: [] }],
  ['rule 6 :: global inheritParentEnv and envFilter ignored for http', { defaults: { inheritParentEnv: true, envFilter: ['A_*'] }, server: { ...http }, stdio: false }, { entry: { ...http }, inherited: [] }],
  ['rule 6 :: ignored for sse too', { defaults: { inheritParentEnv: true, envFilter: ['A_*'] }, server: { type: 'sse', ...http }, stdio: false }, { entry: { type: 'sse', ...http }, inherited: [] }],
  ['rule 6 :: ignored for streamableHttp too', { defaults: { inheritParentEnv: true, envFilter: ['A_*'] }, server: { type: 'streamableHttp', ...http }, stdio: false }, { entry: { type: 'streamableHttp', ...http }, inherited: [] }],
  ['rule 6 :: global env is a stdio setting, not applied to remote servers', { defaults: { env: { A: 'd' } }, server: { ...http }, stdio: false }, { entry: { ...http }, inherited: [] }],

  // rule 7: restart settings only for stdio; explicit value wins
  ['rule 7 :: restart settings apply to stdio servers', { defaults: { restartOnExit: true, maxRestarts: 2, restartDelay: 250 }, server: { ...stdio }, stdio: true }, { entry: { ...stdio, restartOnExit: true, maxRestarts: 2, restartDelay: 250 }, inherited: ['restartOnExit', 'maxRestarts', 'restartDelay'] }],
  ['rule 7 :: restart settings ignored for http', { defaults: { restartOnExit: true, maxRestarts: 2, restartDelay: 250 }, server: { ...http }, stdio: false }, { entry: { ...http }, inherited: [] }],
  ['rule 7 :: restart settings ignored for sse', { defaults: { restartOnExit: true, maxRestarts: 2, restartDelay: 250 }, server: { type: 'sse', ...http }, stdio: false }, { entry: { type: 'sse', ...http }, inherited: [] }],
  ['rule 7 :: explicit restart values on the server win', { defaults: { restartOnExit: true, maxRestarts: 2, restartDelay: 250 }, server: { ...stdio, restartOnExit: false, maxRestarts: 9, restartDelay: 4000 }, stdio: true }, { entry: { ...stdio, restartOnExit: false, maxRestarts: 9, restartDelay: 4000 }, inherited: [] }],

  // decisions §2: stderrLimits merged key by key like the restart settings, stdio only
  ['stderrLimits :: inherited whole when the server has none', { defaults: { stderrLimits: { linesPerWindow: 100, lineBytes: 1024 } }, server: { ...stdio }, stdio: true }, { entry: { ...stdio, stderrLimits: { linesPerWindow: 100, lineBytes: 1024 } }, inherited: ['stderrLimits', 'stderrLimits.linesPerWindow', 'stderrLimits.lineBytes'] }],
  ['stderrLimits :: merged key by key, the server\'s keys win', { defaults: { stderrLimits: { linesPerWindow: 100, lineBytes: 1024 } }, server: { ...stdio, stderrLimits: { lineBytes: 65_536, queueHighWaterBytes: 262_144 } }, stdio: true }, { entry: { ...stdio, stderrLimits: { linesPerWindow: 100, lineBytes: 65_536, queueHighWaterBytes: 262_144 } }, inherited: ['stderrLimits.linesPerWindow'] }],
  ['stderrLimits :: every key set on the server: nothing inherited', { defaults: { stderrLimits: { lineBytes: 1024 } }, server: { ...stdio, stderrLimits: { lineBytes: 2048, windowSeconds: 5 } }, stdio: true }, { entry: { ...stdio, stderrLimits: { lineBytes: 2048, windowSeconds: 5 } }, inherited: [] }],
  ['stderrLimits :: empty defaults change nothing', { defaults: { stderrLimits: {} }, server: { ...stdio }, stdio: true }, { entry: { ...stdio }, inherited: [] }],
  ['stderrLimits :: ignored for http', { defaults: { stderrLimits: { linesPerWindow: 100 } }, server: { ...http }, stdio: false }, { entry: { ...http }, inherited: [] }],
  ['stderrLimits :: ignored for sse', { defaults: { stderrLimits: { linesPerWindow: 100 } }, server: { type: 'sse', ...http }, stdio: false }, { entry: { type: 'sse', ...http }, inherited: [] }],
  ['stderrLimits :: ignored for streamableHttp, the server\'s own left as written', { defaults: { stderrLimits: { linesPerWindow: 100 } }, server: { type: 'streamableHttp', ...http, stderrLimits: { lineBytes: 1024 } }, stdio: false }, { entry: { type: 'streamableHttp', ...http, stderrLimits: { lineBytes: 1024 } }, inherited: [] }],
];

for (const [name, input, expected] of cases) {
  test(`merge :: ${name}`, () => run(input, expected));
}

test('merge :: server keys unrelated to serverDefaults pass through', () => {
  const server: ServerEntry = { command: 'node', args: ['a'], cwd: '/tmp', tags: ['t'], disabledTools: ['x'], stderr: 'inherit', protocolVersion: 'legacy' };
  const { entry } = mergeServerDefaults({ timeout: 100 }, server, true);
  assert.equal(entry, { ...server, timeout: 100 });
});

test('merge :: merged stderrLimits are a new object', () => {
  const defaults: ServerDefaults = { stderrLimits: { lineBytes: 1024 } };
  const server: ServerEntry = { command: 'node', stderrLimits: { windowSeconds: 5 } };
  const merged = mergeServerDefaults(defaults, server, true).entry.stderrLimits!;
  merged.linesPerWindow = 1;
  assert.equal(defaults.stderrLimits, { lineBytes: 1024 });
  assert.equal(server.stderrLimits, { windowSeconds: 5 });
});

test('merge :: merged env object is a new object', () => {
  const defaults: ServerDefaults = { env: { A: '1' } };
  const { entry } = mergeServerDefaults(defaults, { command: 'node' }, true);
  assert.equal(entry.env, { A: '1' });
  const merged = mergeServerDefaults(defaults, { command: 'node', env: { B: '2' } }, true).entry.env as Record<string, string>;
  merged.C = '3';
  assert.equal(defaults.env, { A: '1' });
});

test.run();
