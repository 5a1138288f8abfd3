import { z } from 'zod';
import { STDERR_LIMIT_KEYS, STDERR_LIMIT_MAX, type StderrLimits } from '../shared/stderr-limits.ts';

// Schemas for the raw JSON of mcp.json. Semantics (type inference, defaults, merge) live in normalize.ts.

export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const TAG_PATTERN = /^[A-Za-z0-9_.:-]+$/;

const milliseconds = z.number().int().positive().max(2_147_483_647);
// A scheduling priority below the service's (decisions §2): 0 (normal) to 19 (lowest).
const niceValue = z.number().int().min(0).max(19);
const stderrLimit = (key: keyof StderrLimits) => z.number().int().positive().max(STDERR_LIMIT_MAX[key]).optional();
// Strict: a misspelt limit would otherwise be silently ignored.
const stderrLimits = z.strictObject(
  {
    lineBytes: stderrLimit('lineBytes'),
    linesPerWindow: stderrLimit('linesPerWindow'),
    windowSeconds: stderrLimit('windowSeconds'),
    summaryIntervalSeconds: stderrLimit('summaryIntervalSeconds'),
    queueHighWaterBytes: stderrLimit('queueHighWaterBytes'),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `one of the keys ${STDERR_LIMIT_KEYS.join(', ')}` : undefined) },
);
// RFC 9110 §5.1: a header name is a token; a value holds no line break or NUL (fetch refuses both,
// but only when the backend connects: here it is the configuration's error, named by its path).
export const HEADER_VALUE = /^[^\r\n\0\u0100-\uffff]*$/;
export const HEADER_VALUE_EXPECTED = 'a header value on one line, of Latin-1 characters (no line break, NUL or character above U+00FF)';
const headerRecord = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name (letters, digits and !#$%&\'*+-.^_`|~, no spaces)'),
  z.string().regex(HEADER_VALUE, HEADER_VALUE_EXPECTED),
);
const envForm = z.union([
  z.record(z.string(), z.string()),
  z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/s, 'a `KEY=value` or bare `KEY` entry')),
]);

export const serverDefaultsSchema = z.object({
  env: envForm.optional(),
  timeout: milliseconds.optional(),
  connectionTimeout: milliseconds.optional(),
  requestTimeout: milliseconds.optional(),
  oauth: z.record(z.string(), z.unknown()).optional(),
  headers: headerRecord.optional(),
  inheritParentEnv: z.boolean().optional(),
  envFilter: z.array(z.string().min(1)).optional(),
  restartOnExit: z.boolean().optional(),
  maxRestarts: z.number().int().nonnegative().optional(),
  restartDelay: z.number().int().nonnegative().max(3_600_000).optional(),
  nice: niceValue.optional(),
  stderrLimits: stderrLimits.optional(),
});

export const serverEntrySchema = z.object({
  type: z.enum(['stdio', 'http', 'sse', 'streamableHttp']).optional(),
  tags: z.array(z.string().regex(TAG_PATTERN, 'a tag of letters, digits and _ . : -')).optional(),
  connectionTimeout: milliseconds.optional(),
  requestTimeout: milliseconds.optional(),
  timeout: milliseconds.optional(),
  protocolVersion: z.enum(['legacy', '2026-07-28', 'auto']).optional(),
  disabled: z.union([z.boolean(), z.string()]).optional(),
  disabledTools: z.array(z.string().trim().min(1, 'a non-empty tool name')).optional(),
  toolDescriptionOverrides: z
    .record(z.string().trim().min(1, 'a non-empty tool name'), z.string().trim().min(1, 'a non-blank description'))
    .optional(),
  headers: headerRecord.optional(),
  oauth: z.record(z.string(), z.unknown()).optional(),
  url: z.string().min(1).optional(),
  command: z.string().trim().min(1, 'a non-empty command').optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  env: envForm.optional(),
  inheritParentEnv: z.boolean().optional(),
  envFilter: z.array(z.string().min(1)).optional(),
  stderr: z.union([z.enum(['pipe', 'overlapped', 'inherit', 'ignore']), z.number().int().nonnegative()]).optional(),
  restartOnExit: z.boolean().optional(),
  maxRestarts: z.number().int().nonnegative().optional(),
  restartDelay: z.number().int().nonnegative().max(3_600_000).optional(),
  nice: niceValue.optional(),
  stderrLimits: stderrLimits.optional(),
});

export type ServerDefaults = z.infer<typeof serverDefaultsSchema>;
export type ServerEntry = z.infer<typeof serverEntrySchema>;

export const KNOWN_SERVER_KEYS = new Set(Object.keys(serverEntrySchema.shape));
export const KNOWN_DEFAULTS_KEYS = new Set(Object.keys(serverDefaultsSchema.shape));
export const KNOWN_TOP_LEVEL_KEYS = new Set(['$schema', 'serverDefaults', 'mcpServers', 'mcpTemplates', 'templateSettings']);
