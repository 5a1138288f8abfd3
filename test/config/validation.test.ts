import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EnvSources } from '../../lib/config/env.ts';
import { formatProblem } from '../../lib/config/errors.ts';
import { normalizeConfig, normalizeServer } from '../../lib/config/normalize.ts';
import type { ServerDefaults } from '../../lib/config/schema.ts';
import type { LoadedConfig, RemoteSpec, ServerSlot, StdioSpec } from '../../lib/config/types.ts';

const FILE = '/cfg/agent/mcp.json';
const DIR = '/cfg/agent';
const SOURCES: EnvSources = {
  parent: { HOME: '/home/ann', PATH: '/usr/bin', TOKEN: 'tok-123', HOST: 'api.example.test', DATA: '/data', MULTI: 'line1\nline2' },
  runtimeScope: { SCOPE_KEY: 'from-scope', TOKEN: 'scope-loses' },
  platform: 'linux',
};
const BASE_ENV = { HOME: '/home/ann', PATH: '/usr/bin' };
const UNDEF = (name: string) => `expected the variable \`${name}\` to be defined in the environment or the Runtime Scope .env, found it undefined`;

function slot(name: string, value: unknown, defaults?: ServerDefaults): ServerSlot {
  return normalizeServer(name, value, defaults, FILE, SOURCES);
}

// Invalid entries: the exact formatted messages, in order.
function run(name: string, value: unknown, expected: string | string[], defaults?: ServerDefaults): void {
  const s = slot(name, value, defaults);
  assert.is(s.spec, undefined, 'an invalid entry has no spec');
  assert.ok(s.problems, 'an invalid entry has problems');
  assert.equal(s.problems.map(formatProblem), Array.isArray(expected) ? expected : [expected]);
  assert.is(s.name, name);
}

function valid(name: string, value: unknown, defaults?: ServerDefaults): ServerSlot {
  const s = slot(name, value, defaults);
  assert.is(s.problems, undefined, s.problems ? s.problems.map(formatProblem).join('\n') : '');
  assert.ok(s.spec);
  return s;
}
const stdioSpec = (s: ServerSlot) => s.spec as StdioSpec;
const remoteSpec = (s: ServerSlot) => s.spec as RemoteSpec;

function config(raw: unknown): LoadedConfig {
  const r = normalizeConfig(raw, FILE, DIR, SOURCES);
  assert.ok(r.ok, r.ok ? '' : r.problems.map(formatProblem).join('\n'));
  return r.config;
}

function documentProblems(raw: unknown): string[] {
  const r = normalizeConfig(raw, FILE, DIR, SOURCES);
  assert.not.ok(r.ok, 'the document should be rejected');
  return r.ok ? [] : r.problems.map(formatProblem);
}

const P = (path: string, rest: string) => `${FILE} at ${path}: ${rest}`;
const LIMIT_KEYS = 'lineBytes, linesPerWindow, windowSeconds, summaryIntervalSeconds, queueHighWaterBytes';

// ---- invalid server entries ------------------------------------------------------------------

const invalidCases: Array<[title: string, name: string, value: unknown, expected: string | string[]]> = [
  // whole entry
  ['entry is a string', 'a', 'node server.js', P('mcpServers.a', 'expected an object, found the string "node server.js"')],
  ['entry is null', 'a', null, P('mcpServers.a', 'expected an object, found null')],
  ['entry is an array', 'a', ['node'], P('mcpServers.a', 'expected an object, found an array of 1')],

  // wrong types
  ['command is a number', 'a', { command: 5 }, P('mcpServers.a.command', 'expected a string, found the number 5')],
  ['args is a string', 'a', { command: 'node', args: 'x.js' }, P('mcpServers.a.args', 'expected an array, found the string "x.js"')],
  ['args element is a number', 'a', { command: 'node', args: ['x.js', 8080] }, P('mcpServers.a.args[1]', 'expected a string, found the number 8080')],
  ['timeout is a string', 'a', { command: 'node', timeout: '100' }, P('mcpServers.a.timeout', 'expected a number, found the string "100"')],
  ['timeout is too large for a number (1e400 in the file)', 'a', { command: 'node', timeout: Infinity }, P('mcpServers.a.timeout', 'expected a number, found a number too large to hold (it reads as Infinity)')],
  ['timeout is fractional', 'a', { command: 'node', timeout: 1.5 }, P('mcpServers.a.timeout', 'expected a whole number, found the number 1.5')],
  ['timeout is zero', 'a', { command: 'node', timeout: 0 }, P('mcpServers.a.timeout', 'expected a value greater than 0, found the number 0')],
  ['connectionTimeout is negative', 'a', { command: 'node', connectionTimeout: -5 }, P('mcpServers.a.connectionTimeout', 'expected a value greater than 0, found the number -5')],
  ['requestTimeout above the timer limit', 'a', { command: 'node', requestTimeout: 3_000_000_000 }, P('mcpServers.a.requestTimeout', 'expected a value of at most 2147483647, found the number 3000000000')],
  ['restartOnExit is a string', 'a', { command: 'node', restartOnExit: 'yes' }, P('mcpServers.a.restartOnExit', 'expected true or false, found the string "yes"')],
  ['inheritParentEnv is the string "true"', 'a', { command: 'node', inheritParentEnv: 'true' }, P('mcpServers.a.inheritParentEnv', 'expected true or false, found the string "true"')],
  ['maxRestarts is negative', 'a', { command: 'node', maxRestarts: -1 }, P('mcpServers.a.maxRestarts', 'expected a value of at least 0, found the number -1')],
  ['restartDelay above one hour', 'a', { command: 'node', restartDelay: 3_600_001 }, P('mcpServers.a.restartDelay', 'expected a value of at most 3600000, found the number 3600001')],
  ['tags is a string', 'a', { command: 'node', tags: 'web' }, P('mcpServers.a.tags', 'expected an array, found the string "web"')],
  ['tag with a space', 'a', { command: 'node', tags: ['ok', 'bad tag'] }, P('mcpServers.a.tags[1]', 'expected a tag of letters, digits and _ . : -, found the string "bad tag"')],
  ['headers value is a number', 'a', { url: 'http://h.test', headers: { 'X-Key': 5 } }, P('mcpServers.a.headers.X-Key', 'expected a string, found a number')],
  ['a header value above Latin-1', 'a', { url: 'http://h.test', headers: { 'X-V': '日本' } }, P('mcpServers.a.headers.X-V', 'expected a header value on one line, of Latin-1 characters (no line break, NUL or character above U+00FF), found a string of 2 characters')],
  ['a header value with a line break once substituted (from the environment)', 'a', { url: 'http://h.test', headers: { 'X-From-Env': '${MULTI}' } }, P('mcpServers.a.headers.X-From-Env', 'expected a header value on one line, of Latin-1 characters (no line break, NUL or character above U+00FF) once its variables are substituted, found a string of 11 characters')],
  ['a header name with a space', 'a', { url: 'http://h.test', headers: { 'Bad Header': 'v' } }, P('mcpServers.a.headers["Bad Header"]', 'expected an HTTP header name (letters, digits and !#$%&\'*+-.^_`|~, no spaces), found the key "Bad Header"')],
  ['a header value with a line break, under a secret\'s name', 'a', { url: 'http://h.test', headers: { Authorization: 'Bearer abc\r\nX-Injected: 1' } }, P('mcpServers.a.headers.Authorization', 'expected a header value on one line, of Latin-1 characters (no line break, NUL or character above U+00FF), found a string of 25 characters')],
  ['oauth is a string', 'a', { url: 'http://h.test', oauth: 'yes' }, P('mcpServers.a.oauth', 'expected an object, found the string "yes"')],
  ['cwd is empty', 'a', { command: 'node', cwd: '' }, P('mcpServers.a.cwd', 'expected a non-empty string, found an empty string')],
  ['envFilter entry is empty', 'a', { command: 'node', envFilter: ['A_*', ''] }, P('mcpServers.a.envFilter[1]', 'expected a non-empty string, found an empty string')],
  ['disabled is a number', 'a', { command: 'node', disabled: 1 }, P('mcpServers.a.disabled', 'expected true or false or a string, found the number 1')],
  ['disabled is a non-literal string', 'a', { command: 'node', disabled: '{{project.ci}}' }, P('mcpServers.a.disabled', 'expected true or false (template strings are rendered only in mcpTemplates), found the string "{{project.ci}}"')],
  ['several problems are all reported', 'a', { command: 5, args: 'x', timeout: 'y' }, [
    P('mcpServers.a.timeout', 'expected a number, found the string "y"'),
    P('mcpServers.a.command', 'expected a string, found the number 5'),
    P('mcpServers.a.args', 'expected an array, found the string "x"'),
  ]],

  // stderrLimits (decisions §2): positive whole numbers up to a maximum, no unknown keys
  ['stderrLimits is a number', 'a', { command: 'node', stderrLimits: 5 }, P('mcpServers.a.stderrLimits', 'expected an object, found the number 5')],
  ['stderrLimits is an array', 'a', { command: 'node', stderrLimits: [] }, P('mcpServers.a.stderrLimits', 'expected an object, found an empty array')],
  ['stderrLimits.lineBytes is zero', 'a', { command: 'node', stderrLimits: { lineBytes: 0 } }, P('mcpServers.a.stderrLimits.lineBytes', 'expected a value greater than 0, found the number 0')],
  ['stderrLimits.lineBytes is a string', 'a', { command: 'node', stderrLimits: { lineBytes: '8k' } }, P('mcpServers.a.stderrLimits.lineBytes', 'expected a number, found the string "8k"')],
  ['stderrLimits.lineBytes above 1 MiB', 'a', { command: 'node', stderrLimits: { lineBytes: 1_048_577 } }, P('mcpServers.a.stderrLimits.lineBytes', 'expected a value of at most 1048576, found the number 1048577')],
  ['stderrLimits.linesPerWindow is fractional', 'a', { command: 'node', stderrLimits: { linesPerWindow: 2.5 } }, P('mcpServers.a.stderrLimits.linesPerWindow', 'expected a whole number, found the number 2.5')],
  ['stderrLimits.linesPerWindow is negative', 'a', { command: 'node', stderrLimits: { linesPerWindow: -1 } }, P('mcpServers.a.stderrLimits.linesPerWindow', 'expected a value greater than 0, found the number -1')],
  ['stderrLimits.linesPerWindow above a million', 'a', { command: 'node', stderrLimits: { linesPerWindow: 1_000_001 } }, P('mcpServers.a.stderrLimits.linesPerWindow', 'expected a value of at most 1000000, found the number 1000001')],
  ['stderrLimits.windowSeconds above an hour', 'a', { command: 'node', stderrLimits: { windowSeconds: 3601 } }, P('mcpServers.a.stderrLimits.windowSeconds', 'expected a value of at most 3600, found the number 3601')],
  ['stderrLimits.summaryIntervalSeconds is null', 'a', { command: 'node', stderrLimits: { summaryIntervalSeconds: null } }, P('mcpServers.a.stderrLimits.summaryIntervalSeconds', 'expected a number, found null')],
  ['stderrLimits.summaryIntervalSeconds above an hour', 'a', { command: 'node', stderrLimits: { summaryIntervalSeconds: 7200 } }, P('mcpServers.a.stderrLimits.summaryIntervalSeconds', 'expected a value of at most 3600, found the number 7200')],
  ['stderrLimits.queueHighWaterBytes above 64 MiB', 'a', { command: 'node', stderrLimits: { queueHighWaterBytes: 67_108_865 } }, P('mcpServers.a.stderrLimits.queueHighWaterBytes', 'expected a value of at most 67108864, found the number 67108865')],
  // Past the safe integers too: one problem, the tighter bound (zod also checks the safe range).
  ['stderrLimits.queueHighWaterBytes far above any bound', 'a', { command: 'node', stderrLimits: { queueHighWaterBytes: 1e20 } }, P('mcpServers.a.stderrLimits.queueHighWaterBytes', 'expected a value of at most 67108864, found the number 100000000000000000000')],
  ['nice far below any bound', 'a', { command: 'node', nice: -1e20 }, P('mcpServers.a.nice', 'expected a value of at least 0, found the number -100000000000000000000')],
  ['stderrLimits with an unknown key', 'a', { command: 'node', stderrLimits: { lines: 100 } }, P('mcpServers.a.stderrLimits.lines', `expected one of the keys ${LIMIT_KEYS}, found the key "lines"`)],
  ['stderrLimits with two unknown keys and a bad value', 'a', { command: 'node', stderrLimits: { lineBytes: 0, maxLines: 5, 'window seconds': 2 } }, [
    P('mcpServers.a.stderrLimits.lineBytes', 'expected a value greater than 0, found the number 0'),
    P('mcpServers.a.stderrLimits.maxLines', `expected one of the keys ${LIMIT_KEYS}, found the key "maxLines"`),
    P('mcpServers.a.stderrLimits["window seconds"]', `expected one of the keys ${LIMIT_KEYS}, found the key "window seconds"`),
  ]],
  ['stderrLimits of a remote server is still validated', 'a', { url: 'http://h.test', stderrLimits: { lineBytes: 'big' } }, P('mcpServers.a.stderrLimits.lineBytes', 'expected a number, found the string "big"')],

  // env forms
  ['env is a string', 'a', { command: 'node', env: 'A=1' }, P('mcpServers.a.env', 'expected an object or an array, found a string of 3 characters')],
  // Under env or headers, whatever the key and however short: a secret typed where an object was expected (outside tester).
  ['headers is a string: its content is not shown', 'r1', { url: 'https://x', headers: 'rawHdrSecretAAA111' }, P('mcpServers.r1.headers', 'expected an object, found a string of 18 characters')],
  ['env is a short string: its content is not shown', 'r2', { command: 'node', env: 'rawEnvSecretBBB222' }, P('mcpServers.r2.env', 'expected an object or an array, found a string of 18 characters')],
  ['env is a number', 'a', { command: 'node', env: 12345 }, P('mcpServers.a.env', 'expected an object or an array, found a number')],
  ['a bare env array entry that is no name is not shown', 'a', { command: 'node', env: ['sk live 123'] }, P('mcpServers.a.env[0]', 'expected a `KEY=value` or bare `KEY` entry, found a string of 11 characters')],
  ['a server named env: its other values are shown', 'env', { command: 7 }, P('mcpServers.env.command', 'expected a string, found the number 7')],
  ['env object with a non-string value', 'a', { command: 'node', env: { A: 'x', PORT: 8080 } }, P('mcpServers.a.env.PORT', 'expected a string, found a number')],
  ['env object with two non-string values', 'a', { command: 'node', env: { A: true, B: null } }, [
    P('mcpServers.a.env.A', 'expected a string, found true'),
    P('mcpServers.a.env.B', 'expected a string, found null'),
  ]],
  ['env array with a bad entry: its value is not shown', 'a', { command: 'node', env: ['A=1', '1BAD=x'] }, P('mcpServers.a.env[1]', 'expected a `KEY=value` or bare `KEY` entry, found the entry "1BAD=…" (its value not shown)')],
  ['env array with a bad name under a secret\'s name: no part of the value shown', 'a', { command: 'node', env: ['DB-PASS=hunter2SECRET19'] }, P('mcpServers.a.env[0]', 'expected a `KEY=value` or bare `KEY` entry, found the entry "DB-PASS=…" (its value not shown)')],
  ['env array with a non-string', 'a', { command: 'node', env: ['A=1', 2] }, P('mcpServers.a.env[1]', 'expected a string, found a number')],
  // A value under a secret's key is described by its kind, never shown: a number is a secret too.
  ['env secret that is a number', 'a', { command: 'node', env: { API_KEY: 98765432123 } }, P('mcpServers.a.env.API_KEY', 'expected a string, found a number')],
  ['header secret that is a number', 'a', { url: 'https://x.test/mcp', headers: { Authorization: 55555555555 } }, P('mcpServers.a.headers.Authorization', 'expected a string, found a number')],

  // bad enums
  ['unknown type', 'a', { type: 'websocket', url: 'ws://h' }, P('mcpServers.a.type', 'expected one of "stdio", "http", "sse", "streamableHttp", found the string "websocket"')],
  ['type in wrong case', 'a', { type: 'HTTP', url: 'http://h.test' }, P('mcpServers.a.type', 'expected one of "stdio", "http", "sse", "streamableHttp", found the string "HTTP"')],
  ['unknown protocolVersion', 'a', { command: 'node', protocolVersion: '2025-06-18' }, P('mcpServers.a.protocolVersion', 'expected one of "legacy", "2026-07-28", "auto", found the string "2025-06-18"')],
  ['unknown stderr target', 'a', { command: 'node', stderr: 'pipes' }, P('mcpServers.a.stderr', 'expected one of "pipe", "overlapped", "inherit", "ignore", found the string "pipes"')],
  ['negative stderr descriptor', 'a', { command: 'node', stderr: -1 }, P('mcpServers.a.stderr', 'expected a value of at least 0, found the number -1')],
  ['stderr of the wrong type', 'a', { command: 'node', stderr: true }, P('mcpServers.a.stderr', 'expected one of "pipe", "overlapped", "inherit", "ignore" or a number, found true')],

  // names
  ['name with a space', 'my server', { command: 'node' }, P('mcpServers["my server"]', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name "my server"')],
  ['name with a dot', 'a.b', { command: 'node' }, P('mcpServers["a.b"]', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name "a.b"')],
  ['empty name', '', { command: 'node' }, P('mcpServers[""]', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name ""')],
  ['name containing _agent_', 'git_agent_hub', { command: 'node' }, P('mcpServers.git_agent_hub', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name "git_agent_hub"')],
  ['name ending in _agent_', 'x_agent_', { command: 'node' }, P('mcpServers.x_agent_', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name "x_agent_"')],
  ['name ending in _agent', 'x_agent', { command: 'node' }, P('mcpServers.x_agent', 'expected a server name that does not end in `_agent` (clients\' names `x_agent_agent_<tool>` are split on their first `_agent_`, so its tools could not be reached), found the name "x_agent"')],
  ['name that is _agent', '_agent', { command: 'node' }, P('mcpServers._agent', 'expected a server name that does not end in `_agent` (clients\' names `_agent_agent_<tool>` are split on their first `_agent_`, so its tools could not be reached), found the name "_agent"')],
  ['bad name wins over a bad body', 'bad/name', { command: 5 }, P('mcpServers["bad/name"]', 'expected a server name of letters, digits, `_` and `-` that does not contain `_agent_`, found the name "bad/name"')],

  // transport shape
  ['command and url without type', 'a', { command: 'node', url: 'http://h.test' }, P('mcpServers.a.type', 'expected a `type` when both `command` and `url` are given, found both `command` and `url` and no `type`')],
  ['neither command nor url', 'a', { args: ['x'] }, P('mcpServers.a', 'expected `command` (stdio server) or `url` (http, sse, streamableHttp server), found neither')],
  ['empty object', 'a', {}, P('mcpServers.a', 'expected `command` (stdio server) or `url` (http, sse, streamableHttp server), found neither')],
  ['type stdio without command', 'a', { type: 'stdio', url: 'http://h.test' }, P('mcpServers.a.command', 'expected a command for a stdio server, found nothing')],
  ['type http without url', 'a', { type: 'http', command: 'node' }, P('mcpServers.a.url', 'expected a url (required for type http), found nothing')],
  ['type sse without url', 'a', { type: 'sse' }, P('mcpServers.a.url', 'expected a url (required for type sse), found nothing')],
  ['type streamableHttp without url', 'a', { type: 'streamableHttp' }, P('mcpServers.a.url', 'expected a url (required for type streamableHttp), found nothing')],
  ['blank command', 'a', { command: '   ' }, P('mcpServers.a.command', 'expected a non-empty command, found an empty string')],

  // tool filtering
  ['empty disabledTools entry', 'a', { command: 'node', disabledTools: ['search', ''] }, P('mcpServers.a.disabledTools[1]', 'expected a non-empty tool name, found an empty string')],
  ['blank disabledTools entry', 'a', { command: 'node', disabledTools: ['   '] }, P('mcpServers.a.disabledTools[0]', 'expected a non-empty tool name, found an empty string')],
  ['disabledTools is a string', 'a', { command: 'node', disabledTools: 'search' }, P('mcpServers.a.disabledTools', 'expected an array, found the string "search"')],
  ['blank override description', 'a', { command: 'node', toolDescriptionOverrides: { search: '   ' } }, P('mcpServers.a.toolDescriptionOverrides.search', 'expected a non-blank description, found an empty string')],
  ['empty override description', 'a', { command: 'node', toolDescriptionOverrides: { search: '' } }, P('mcpServers.a.toolDescriptionOverrides.search', 'expected a non-blank description, found an empty string')],
  ['override description is a number', 'a', { command: 'node', toolDescriptionOverrides: { search: 3 } }, P('mcpServers.a.toolDescriptionOverrides.search', 'expected a string, found the number 3')],
  ['empty override tool name', 'a', { command: 'node', toolDescriptionOverrides: { '': 'Find things' } }, P('mcpServers.a.toolDescriptionOverrides[""]', 'expected a non-empty tool name, found the key ""')],
  ['blank override tool name', 'a', { command: 'node', toolDescriptionOverrides: { '  ': 'Find things' } }, P('mcpServers.a.toolDescriptionOverrides["  "]', 'expected a non-empty tool name, found the key "  "')],

  // urls
  ['empty url', 'a', { url: '' }, P('mcpServers.a.url', 'expected a non-empty string, found an empty string')],
  ['url that is not a URL', 'a', { url: 'not a url' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "not a url"')],
  ['url without a scheme', 'a', { url: 'localhost:3000/mcp' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "localhost:3000/mcp"')],
  // decisions §4: URLs in messages are sanitized to [URL]
  ['url with a non-http scheme (shown as written: the operator\'s text keeps URLs, decisions §4)', 'a', { url: 'ftp://files.example.test/mcp' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "ftp://files.example.test/mcp"')],
  ['sse url with ws scheme (shown as written)', 'a', { type: 'sse', url: 'ws://h.example.test/sse' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "ws://h.example.test/sse"')],
  ['a url with credentials: shown without them', 'a', { url: 'ftp://bob:hunter2@files.test/x' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "ftp://[REDACTED]@files.test/x"')],
  ['url that only becomes bad after substitution', 'a', { url: '$HOST/mcp' }, P('mcpServers.a.url', 'expected an absolute URL whose scheme is http or https, found the string "api.example.test/mcp"')],

  // undefined ${VAR}
  ['undefined variable in command', 'a', { command: '${NODE_BIN}/node' }, P('mcpServers.a.command', UNDEF('NODE_BIN'))],
  ['undefined variable in args', 'a', { command: 'node', args: ['ok', '--key=$API_KEY'] }, P('mcpServers.a.args[1]', UNDEF('API_KEY'))],
  ['undefined variable in cwd', 'a', { command: 'node', cwd: '${WORKDIR}/x' }, P('mcpServers.a.cwd', UNDEF('WORKDIR'))],
  ['undefined variable in env object', 'a', { command: 'node', env: { GITHUB_TOKEN: '${GH_TOKEN}' } }, P('mcpServers.a.env.GITHUB_TOKEN', UNDEF('GH_TOKEN'))],
  ['undefined variable in env array', 'a', { command: 'node', env: ['A=1', 'B=$MISSING'] }, P('mcpServers.a.env[1]', UNDEF('MISSING'))],
  ['undefined variable in url', 'a', { url: 'https://${API_HOST}/mcp' }, P('mcpServers.a.url', UNDEF('API_HOST'))],
  ['undefined variable in a header', 'a', { url: 'https://h.test/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } }, P('mcpServers.a.headers.Authorization', UNDEF('API_TOKEN'))],
  ['undefined variable in a serverDefaults env value names the server field', 'a', { command: 'node' }, P('mcpServers.a.env.SHARED', UNDEF('NOT_SET'))],
];

for (const [title, name, value, expected] of invalidCases) {
  const defaults: ServerDefaults | undefined = title.includes('serverDefaults') ? { env: { SHARED: '$NOT_SET' } } : undefined;
  test(`validation :: ${title}`, () => run(name, value, expected, defaults));
}

test('validation :: invalid entry keeps its tags and disabled flag', () => {
  const s = slot('a', { command: 5, tags: ['web', 'prod', 7], disabled: true });
  assert.ok(s.problems);
  assert.equal(s.tags, ['web', 'prod']);
  assert.is(s.disabled, true);
  assert.equal(s.warnings, []);
});

test('validation :: invalid entry with disabled "true" stays disabled', () => {
  const s = slot('a', { command: 'node', args: 'x', tags: ['t'], disabled: 'true' });
  assert.ok(s.problems);
  assert.is(s.disabled, true);
  assert.equal(s.tags, ['t']);
});

test('validation :: semantically invalid entry keeps tags and disabled', () => {
  const ambiguous = slot('a', { command: 'node', url: 'http://h.test', tags: ['x'], disabled: true });
  assert.ok(ambiguous.problems);
  assert.equal(ambiguous.tags, ['x']);
  assert.is(ambiguous.disabled, true);
  const undefinedVar = slot('b', { command: '$NOPE', tags: ['y'] });
  assert.ok(undefinedVar.problems);
  assert.equal(undefinedVar.tags, ['y']);
  assert.is(undefinedVar.disabled, false);
});

test('validation :: bad name keeps the tags and disabled flag', () => {
  const s = slot('bad name', { command: 'node', tags: ['a'], disabled: true });
  assert.ok(s.problems);
  assert.equal(s.tags, ['a']);
  assert.is(s.disabled, true);
});

// ---- document-level problems -----------------------------------------------------------------

const documentCases: Array<[title: string, raw: unknown, expected: string[]]> = [
  ['document is an array', [], [`${FILE}: expected a JSON object, found an empty array`]],
  ['document is a string', 'mcpServers', [`${FILE}: expected a JSON object, found the string "mcpServers"`]],
  ['document is null', null, [`${FILE}: expected a JSON object, found null`]],
  ['document is a number', 42, [`${FILE}: expected a JSON object, found the number 42`]],
  ['mcpServers is an array', { mcpServers: [] }, [P('mcpServers', 'expected an object, found an empty array')]],
  ['mcpServers is a string', { mcpServers: 'none' }, [P('mcpServers', 'expected an object, found the string "none"')]],
  ['mcpServers is null', { mcpServers: null }, [P('mcpServers', 'expected an object, found null')]],
  // service.md marks mcpServers as the one non-optional top-level key
  ['mcpServers is missing', { serverDefaults: {} }, [P('mcpServers', 'expected an object, found nothing')]],
  ['mcpTemplates is not an object', { mcpServers: {}, mcpTemplates: ['t'] }, [P('mcpTemplates', 'expected an object, found an array of 1')]],
  ['templateSettings is not an object', { mcpServers: {}, templateSettings: true }, [P('templateSettings', 'expected an object, found true')]],
  ['serverDefaults is a string', { mcpServers: {}, serverDefaults: 'x' }, [P('serverDefaults', 'expected an object, found the string "x"')]],
  ['serverDefaults is an array', { mcpServers: {}, serverDefaults: [] }, [P('serverDefaults', 'expected an object, found an empty array')]],
  ['serverDefaults bad values', { mcpServers: {}, serverDefaults: { timeout: '5s', envFilter: 'A_*', inheritParentEnv: 1 } }, [
    P('serverDefaults.timeout', 'expected a number, found the string "5s"'),
    P('serverDefaults.inheritParentEnv', 'expected true or false, found the number 1'),
    P('serverDefaults.envFilter', 'expected an array, found the string "A_*"'),
  ]],
  ['serverDefaults env with a bad array entry', { mcpServers: {}, serverDefaults: { env: ['OK=1', 'NOT OK'] } }, [P('serverDefaults.env[1]', 'expected a `KEY=value` or bare `KEY` entry, found a string of 6 characters')]],
  ['serverDefaults env object with a number', { mcpServers: {}, serverDefaults: { env: { PORT: 1 } } }, [P('serverDefaults.env.PORT', 'expected a string, found a number')]],
  ['serverDefaults headers is a string', { mcpServers: {}, serverDefaults: { headers: 'rawHdrSecretAAA111' } }, [P('serverDefaults.headers', 'expected an object, found a string of 18 characters')]],
  ['serverDefaults env is a string', { mcpServers: {}, serverDefaults: { env: 'tok' } }, [P('serverDefaults.env', 'expected an object or an array, found a string of 3 characters')]],
  ['serverDefaults headers not strings', { mcpServers: {}, serverDefaults: { headers: { 'X-A': ['v'] } } }, [P('serverDefaults.headers.X-A', 'expected a string, found an array of 1')]],
  ['serverDefaults maxRestarts negative', { mcpServers: {}, serverDefaults: { maxRestarts: -2 } }, [P('serverDefaults.maxRestarts', 'expected a value of at least 0, found the number -2')]],
  ['serverDefaults stderrLimits with a bad value', { mcpServers: {}, serverDefaults: { stderrLimits: { windowSeconds: 0 } } }, [P('serverDefaults.stderrLimits.windowSeconds', 'expected a value greater than 0, found the number 0')]],
  // Unknown serverDefaults keys only warn; an unknown limit is an error, like on a server.
  ['serverDefaults stderrLimits with an unknown key', { mcpServers: {}, serverDefaults: { stderrLimits: { lineByte: 1024 } } }, [P('serverDefaults.stderrLimits.lineByte', `expected one of the keys ${LIMIT_KEYS}, found the key "lineByte"`)]],
  ['several document problems together', { mcpServers: 'x', serverDefaults: { timeout: -1 } }, [
    P('mcpServers', 'expected an object, found the string "x"'),
    P('serverDefaults.timeout', 'expected a value greater than 0, found the number -1'),
  ]],
];

for (const [title, raw, expected] of documentCases) {
  test(`validation :: document ${title}`, () => assert.equal(documentProblems(raw), expected));
}

test('validation :: one bad entry does not fail the document', () => {
  const c = config({ mcpServers: { good: { command: 'node' }, bad: { command: 5 } } });
  assert.equal(c.servers.map((s) => s.name), ['good', 'bad']);
  assert.ok(c.servers[0]?.spec);
  assert.is(c.servers[1]?.spec, undefined);
  assert.equal(c.servers[1]?.problems?.map(formatProblem), [P('mcpServers.bad.command', 'expected a string, found the number 5')]);
  assert.is(c.file, FILE);
  assert.is(c.dir, DIR);
});

// ---- valid entries ---------------------------------------------------------------------------

test('validation :: command infers stdio with defaults', () => {
  const s = valid('files', { command: 'node', tags: ['local'] });
  assert.equal(s, {
    name: 'files',
    tags: ['local'],
    disabled: false,
    warnings: [],
    inherited: [],
    spec: {
      name: 'files',
      tags: ['local'],
      connectionTimeout: 10_000,
      requestTimeout: 60_000,
      protocolVersion: 'auto',
      disabledTools: [],
      toolDescriptionOverrides: {},
      type: 'stdio',
      command: 'node',
      args: [],
      cwd: undefined,
      env: BASE_ENV,
      stderr: 'pipe',
      supervision: { restartOnExit: false, maxRestarts: 5, restartDelay: 1000 },
    },
    raw: { command: 'node', args: [] },
  });
});

test('validation :: raw keeps the substituted strings as written, serverDefaults included', () => {
  const stdio = valid('s', { command: '$DATA/bin/server', args: ['--token=${TOKEN}', 'plain', 'cost=$$1'], cwd: '${DATA}/work' });
  assert.equal(stdio.raw, { command: '$DATA/bin/server', args: ['--token=${TOKEN}', 'plain', 'cost=$$1'], cwd: '${DATA}/work' });
  assert.equal(stdioSpec(stdio).args, ['--token=tok-123', 'plain', 'cost=$1']);
  const remote = valid('r', { url: 'https://${HOST}/mcp?key=$TOKEN' }, { headers: { Authorization: 'Bearer ${TOKEN}' } });
  assert.equal(remote.raw, { url: 'https://${HOST}/mcp?key=$TOKEN', headers: { Authorization: 'Bearer ${TOKEN}' } });
  assert.equal(remoteSpec(remote).headers, { Authorization: 'Bearer tok-123' });
});

test('validation :: url infers http with defaults', () => {
  const s = valid('web', { url: 'https://mcp.example.test/mcp' });
  assert.equal(s.spec, {
    name: 'web',
    tags: [],
    connectionTimeout: 10_000,
    requestTimeout: 60_000,
    protocolVersion: 'auto',
    disabledTools: [],
    toolDescriptionOverrides: {},
    type: 'http',
    url: 'https://mcp.example.test/mcp',
    headers: {},
  });
});

const explicitTypes: Array<[value: Record<string, unknown>, type: string]> = [
  [{ type: 'sse', url: 'http://h.test/sse' }, 'sse'],
  [{ type: 'streamableHttp', url: 'http://h.test/mcp' }, 'streamableHttp'],
  [{ type: 'http', url: 'http://h.test/mcp', command: 'ignored' }, 'http'],
  [{ type: 'stdio', command: 'node', url: 'http://ignored.test' }, 'stdio'],
];
for (const [value, type] of explicitTypes) {
  test(`validation :: explicit type ${type} ${value.command && value.url ? 'with both command and url ' : ''}is accepted`, () => {
    assert.is(valid('a', value).spec?.type, type);
  });
}

const disabledCases: Array<[value: unknown, expected: boolean]> = [
  [undefined, false],
  [true, true],
  [false, false],
  ['true', true],
  ['false', false],
  [' TRUE ', true],
  ['False', false],
];
for (const [value, expected] of disabledCases) {
  test(`validation :: disabled ${JSON.stringify(value)} -> ${expected}`, () => {
    const s = valid('a', value === undefined ? { command: 'node' } : { command: 'node', disabled: value });
    assert.is(s.disabled, expected);
  });
}

// decisions §2: merge first (each key independently), then the specific timeout beats `timeout`.
const timeoutCases: Array<[title: string, server: Record<string, unknown>, defaults: ServerDefaults | undefined, connection: number, request: number]> = [
  ['defaults', {}, undefined, 10_000, 60_000],
  ['timeout alone sets both', { timeout: 5000 }, undefined, 5000, 5000],
  ['connectionTimeout beats timeout', { timeout: 5000, connectionTimeout: 2000 }, undefined, 2000, 5000],
  ['requestTimeout beats timeout', { timeout: 5000, requestTimeout: 30_000 }, undefined, 5000, 30_000],
  ['both specific ones beat timeout', { timeout: 5000, connectionTimeout: 1000, requestTimeout: 2000 }, undefined, 1000, 2000],
  ['inherited connectionTimeout beats the server timeout', { timeout: 20_000 }, { connectionTimeout: 3000 }, 3000, 20_000],
  ['server connectionTimeout beats an inherited timeout', { connectionTimeout: 4000 }, { timeout: 7000 }, 4000, 7000],
  ['inherited timeout and requestTimeout', {}, { timeout: 7000, requestTimeout: 9000 }, 7000, 9000],
  ['server requestTimeout beats the inherited one', { requestTimeout: 1000 }, { requestTimeout: 9000 }, 10_000, 1000],
  ['server timeout beats the inherited timeout', { timeout: 1500 }, { timeout: 9000 }, 1500, 1500],
];
for (const [title, server, defaults, connection, request] of timeoutCases) {
  test(`validation :: timeouts ${title}`, () => {
    const stdio = valid('a', { command: 'node', ...server }, defaults).spec!;
    assert.is(stdio.connectionTimeout, connection);
    assert.is(stdio.requestTimeout, request);
    const remote = valid('b', { url: 'http://h.test', ...server }, defaults).spec!;
    assert.is(remote.connectionTimeout, connection);
    assert.is(remote.requestTimeout, request);
  });
}

test('validation :: deprecated timeout warns once', () => {
  const s = valid('a', { command: 'node', timeout: 5000, connectionTimeout: 1000 });
  assert.equal(s.warnings, [`${FILE}: mcpServers.a.timeout is deprecated: use connectionTimeout and requestTimeout`]);
});

test('validation :: no deprecation warning without timeout', () => {
  assert.equal(valid('a', { command: 'node', connectionTimeout: 1000, requestTimeout: 2000 }).warnings, []);
});

test('validation :: unknown server keys warn and are dropped (a file for a newer version or another client still loads)', () => {
  const s = valid('a', { command: 'node', extra: 1, alwaysAllow: [], description: 'x', envFile: '.env.local', comment: 'see wiki', cmd: 'x', path: '/srv', enabled: true, transportType: 'stdio' });
  assert.equal(s.warnings, [`${FILE}: mcpServers.a: unknown keys ignored: extra, alwaysAllow, description, envFile, comment, cmd, path, enabled, transportType`]);
  assert.is(stdioSpec(s).command, 'node');
});

test('validation :: a near miss of a known key is a typo: the entry is invalid, naming the key it stands for', () => {
  const table: [Record<string, unknown>, string, string][] = [
    [{ command: 'node', requestTimout: 1500 }, 'requestTimout', 'requestTimeout'],
    [{ command: 'node', RequestTimeout: 1500 }, 'RequestTimeout', 'requestTimeout'],
    [{ command: 'node', comand: 'typo' }, 'comand', 'command'],
    [{ command: 'node', ENV: {} }, 'ENV', 'env'],
    [{ command: 'node', disable: true }, 'disable', 'disabled'],
    [{ command: 'node', restartOnExt: true }, 'restartOnExt', 'restartOnExit'],
  ];
  for (const [value, key, meant] of table) {
    const s = slot('a', value);
    assert.equal(s.problems?.map(formatProblem), [P(`mcpServers.a.${key}`, `expected a known key (did you mean ${meant}?), found the key "${key}"`)], key);
    assert.is(s.problems?.[0]?.code, undefined, 'invalid_config');
  }
});

test('validation :: unknown top-level and serverDefaults keys warn; near misses reject the file', () => {
  const c = config({ $schema: 'x', mcpServers: {}, extra: 1, other: {}, serverDefaults: { timeout: 100, command: 'node' } });
  assert.equal(c.warnings, [
    `${FILE}: unknown top-level keys ignored: extra, other`,
    `${FILE}: serverDefaults: unknown keys ignored: command`,
  ]);
  assert.equal(documentProblems({ mcpServers: {}, serverDefault: {} }), [P('serverDefault', 'expected a known key (did you mean serverDefaults?), found the key "serverDefault"')]);
  assert.equal(documentProblems({ mcpServers: {}, serverDefaults: { restartDelya: 5 } }), [P('serverDefaults.restartDelya', 'expected a known key (did you mean restartDelay?), found the key "restartDelya"')]);
});

test('validation :: template-shadowed server is skipped with a warning', () => {
  const c = config({
    mcpServers: { shared: { command: 'node' }, plain: { command: 'node' } },
    mcpTemplates: { shared: { command: 'node', args: ['{{project.path}}'] } },
  });
  assert.equal(c.servers.map((s) => s.name), ['plain']);
  assert.equal(c.warnings, [
    `${FILE}: mcpTemplates and templateSettings are validated but not served by this version`,
    `${FILE}: mcpServers.shared is not served: mcpTemplates.shared is authoritative for that name`,
  ]);
});

test('validation :: templateSettings alone warns that templates are not served', () => {
  const c = config({ mcpServers: {}, templateSettings: { failureMode: 'graceful' } });
  assert.equal(c.warnings, [`${FILE}: mcpTemplates and templateSettings are validated but not served by this version`]);
});

test('validation :: empty mcpServers is a valid document', () => {
  const c = config({ mcpServers: {} });
  assert.equal(c, { file: FILE, dir: DIR, servers: [], warnings: [] });
});

test('validation :: oauth is accepted and reported as ignored', () => {
  const c = config({ serverDefaults: { oauth: { clientId: 'd' } }, mcpServers: { a: { url: 'https://h.test', oauth: { clientId: 'x' } } } });
  assert.equal(c.warnings, [`${FILE}: serverDefaults.oauth is ignored by this version`]);
  assert.equal(c.servers[0]?.warnings, [`${FILE}: mcpServers.a.oauth is ignored by this version`]);
});

test('validation :: substitution in command, args, cwd, env, url and headers', () => {
  const stdio = stdioSpec(valid('a', { command: '$DATA/bin/tool', args: ['--token=${TOKEN}', '--scope=$SCOPE_KEY', 'cost $$5'], cwd: '${HOME}/work', env: { KEY: '${SCOPE_KEY}' } }));
  assert.is(stdio.command, '/data/bin/tool');
  assert.equal(stdio.args, ['--token=tok-123', '--scope=from-scope', 'cost $5']);
  assert.is(stdio.cwd, '/home/ann/work');
  assert.equal(stdio.env, { ...BASE_ENV, KEY: 'from-scope' });
  const remote = remoteSpec(valid('b', { url: 'https://$HOST/mcp', headers: { Authorization: 'Bearer ${TOKEN}', 'X-Static': 'v' } }));
  assert.is(remote.url, 'https://api.example.test/mcp');
  assert.equal(remote.headers, { Authorization: 'Bearer tok-123', 'X-Static': 'v' });
});

test('validation :: values substituted from variables with secret names are kept as the spec\'s referencedSecrets', () => {
  const stdio = stdioSpec(valid('a', { command: 'node', args: ['--token=${TOKEN}', '$HOME'], env: { DSN: 'pg://u:${SCOPE_KEY}@db' } }));
  assert.equal(stdio.referencedSecrets, ['tok-123', 'from-scope'], 'TOKEN and SCOPE_KEY name secrets; HOME does not');
  const remote = remoteSpec(valid('b', { url: 'https://$HOST/mcp?k=${TOKEN}', headers: { 'X-Static': 'v' } }));
  assert.equal(remote.referencedSecrets, ['tok-123']);
  assert.is(stdioSpec(valid('c', { command: '$DATA/bin/tool', args: ['$HOME'] })).referencedSecrets, undefined, 'none referenced: no field');
});

test('validation :: stderr targets', () => {
  const of = (stderr: unknown) => stdioSpec(valid('a', stderr === undefined ? { command: 'node' } : { command: 'node', stderr })).stderr;
  assert.is(of(undefined), 'pipe');
  assert.is(of('pipe'), 'pipe');
  assert.is(of('overlapped'), 'pipe');
  assert.is(of('inherit'), 'inherit');
  assert.is(of('ignore'), 'ignore');
  assert.is(of(2), 2);
});

test('validation :: serverDefaults flow into the spec', () => {
  const defaults: ServerDefaults = {
    env: { SHARED: 'd', LEVEL: 'info' },
    headers: { 'X-Team': 'core' },
    inheritParentEnv: true,
    envFilter: ['TOKEN'],
    restartOnExit: true,
    maxRestarts: 0,
    restartDelay: 250,
  };
  const stdio = stdioSpec(valid('a', { command: 'node', env: { LEVEL: 'debug' }, maxRestarts: 3 }, defaults));
  assert.equal(stdio.env, { ...BASE_ENV, TOKEN: 'tok-123', SHARED: 'd', LEVEL: 'debug' });
  assert.equal(stdio.supervision, { restartOnExit: true, maxRestarts: 3, restartDelay: 250 });
  const remote = remoteSpec(valid('b', { url: 'http://h.test' }, defaults));
  assert.equal(remote.headers, { 'X-Team': 'core' });
  assert.is('env' in remote, false);
});

test('validation :: stderrLimits reach the stdio spec; serverDefaults fill in key by key', () => {
  assert.equal(stdioSpec(valid('a', { command: 'node', stderrLimits: { linesPerWindow: 100 } })).stderrLimits, { linesPerWindow: 100 });
  const defaults: ServerDefaults = { stderrLimits: { linesPerWindow: 1000, lineBytes: 1024 } };
  const merged = valid('b', { command: 'node', stderrLimits: { lineBytes: 65_536, windowSeconds: 30 } }, defaults);
  assert.equal(stdioSpec(merged).stderrLimits, { linesPerWindow: 1000, lineBytes: 65_536, windowSeconds: 30 });
  assert.equal(merged.inherited, ['stderrLimits.linesPerWindow'], 'the key from serverDefaults, not the whole object');
  assert.equal(stdioSpec(valid('c', { command: 'node' }, defaults)).stderrLimits, { linesPerWindow: 1000, lineBytes: 1024 });
});

test('validation :: stderrLimits are not part of a remote spec, nor inherited by one', () => {
  for (const type of ['http', 'sse', 'streamableHttp']) {
    const s = valid('r', { type, url: 'http://h.test/mcp', stderrLimits: { lineBytes: 1024 } }, { stderrLimits: { linesPerWindow: 5 } });
    assert.not.ok('stderrLimits' in s.spec!, type);
    assert.equal(s.inherited, [], type);
  }
});

test('validation :: empty stderrLimits leave the spec without them', () => {
  assert.not.ok('stderrLimits' in valid('a', { command: 'node', stderrLimits: {} }, { stderrLimits: {} }).spec!);
});

test('validation :: tool filtering fields are kept (trimmed)', () => {
  const s = valid('a', { command: 'node', disabledTools: ['delete', ' drop '], toolDescriptionOverrides: { search: '  Find files  ' }, protocolVersion: 'legacy' });
  assert.equal(s.spec?.disabledTools, ['delete', 'drop']);
  assert.equal(s.spec?.toolDescriptionOverrides, { search: 'Find files' });
  assert.is(s.spec?.protocolVersion, 'legacy');
});

test('validation :: server names that are allowed', () => {
  for (const name of ['a', 'A-b_c', '123', 'agent', 'agent_x', 'x_agents', 'my_agent-x', 'x-agent-y', 'x_agent-']) valid(name, { command: 'node' });
});

test.run();
