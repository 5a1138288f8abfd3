// `agent serve --lazy-tools`: instead of every backend tool, clients see three meta-tools to
// discover (tool_list), inspect (tool_schema) and call (tool_invoke) them. Filtering, tags and
// description overrides apply exactly as in the full listing, because both read the catalog view.
import { type CallToolResult, ProtocolError, type Tool } from '@modelcontextprotocol/server';
import type { CatalogView } from './catalog.ts';
import { qualify, splitQualified } from '../shared/names.ts';
import { Code, rpcCode } from '../shared/errors.ts';
import { badArgument, toolDisabledError } from './tool-errors.ts';

export const LAZY_PAGE_SIZE = 50;

export const META_TOOLS: Tool[] = [
  {
    name: 'tool_list',
    description: 'List the available tools (name, server, description). Filter by server, a glob pattern on the tool name (* and ?), or a backend tag; paginated with cursor.',
    inputSchema: {
      type: 'object',
      properties: {
        server: { type: 'string', description: 'Only tools of this server' },
        pattern: { type: 'string', description: 'Glob on the tool name, e.g. "*issue*"' },
        tag: { type: 'string', description: 'Only tools of servers with this tag' },
        cursor: { type: 'string', description: 'nextCursor of the previous page' },
        limit: { type: 'integer', minimum: 1, maximum: 200, description: `Page size (default ${LAZY_PAGE_SIZE})` },
      },
    },
  },
  {
    name: 'tool_schema',
    description: "One tool's input schema and description, by server and tool name.",
    inputSchema: { type: 'object', properties: { server: { type: 'string' }, tool: { type: 'string' } }, required: ['server', 'tool'] },
  },
  {
    name: 'tool_invoke',
    description: 'Call a tool by server and tool name with its arguments.',
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string' }, tool: { type: 'string' }, arguments: { type: 'object', additionalProperties: true } },
      required: ['server', 'tool'],
    },
  },
];

export const isMetaTool = (name: string) => META_TOOLS.some((t) => t.name === name);

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });

function text(args: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = args[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw badArgument(`Expected "${key}" to be a non-empty string`);
  return value;
}

export type LazyContext = { view: CatalogView; tagsOf: (server: string) => string[] | undefined };

export function toolList(args: Record<string, unknown>, { view, tagsOf }: LazyContext): CallToolResult {
  const server = text(args, 'server', false);
  const pattern = text(args, 'pattern', false);
  const tag = text(args, 'tag', false)?.toLowerCase();
  const limit = args.limit === undefined ? LAZY_PAGE_SIZE : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw badArgument('Expected "limit" to be a whole number from 1 to 200');
  const match = pattern ? globToRegExp(pattern) : null;
  const all = view.tools
    .map((t) => ({ qualified: t.name, ...splitQualified(t.name)!, description: t.description ?? null }))
    .filter((t) => (server === undefined || t.server === server) && (!match || match.test(t.name) || match.test(t.qualified)))
    .filter((t) => tag === undefined || (tagsOf(t.server) ?? []).some((x) => x.toLowerCase() === tag));
  // A cursor is a string this service handed out: a base64url count (a number or '' is none).
  const cursor = args.cursor === undefined ? undefined : text(args, 'cursor', true)!;
  const decoded = cursor === undefined ? '0' : Buffer.from(cursor, 'base64url').toString();
  const start = /^\d+$/.test(decoded) ? Number(decoded) : NaN;
  if (!Number.isInteger(start) || start < 0 || start > all.length) throw badArgument(`Invalid cursor: ${JSON.stringify(args.cursor)}`);
  const page = all.slice(start, start + limit).map((t) => ({ name: t.qualified, server: t.server, tool: t.name, description: t.description }));
  const next = start + limit < all.length ? Buffer.from(String(start + limit)).toString('base64url') : undefined;
  return json({ tools: page, total: all.length, ...(next ? { nextCursor: next } : {}) });
}

/** The catalog's tool for server + tool name, or the error a direct call would get: disabled (`isDisabled`), or unknown. */
export function findTool(args: Record<string, unknown>, view: CatalogView, isDisabled: (server: string, tool: string) => boolean = () => false): Tool {
  const server = text(args, 'server', true)!;
  const tool = text(args, 'tool', true)!;
  // The backend's own name first: a tool may itself be named `<server>_agent_...`.
  const named = (name: string) => view.tools.find((t) => t.name === name);
  const found = named(qualify(server, tool)) ?? (tool.startsWith(`${server}_agent_`) ? named(tool) : undefined);
  if (found) return found;
  if (isDisabled(server, tool)) throw toolDisabledError(server, tool, qualify(server, tool));
  throw new ProtocolError(rpcCode(Code.unknown_tool), `Unknown tool: ${tool} on server ${server}`, { code: Code.unknown_tool, server, tool });
}

export function toolSchema(args: Record<string, unknown>, view: CatalogView, isDisabled?: (server: string, tool: string) => boolean): CallToolResult {
  const tool = findTool(args, view, isDisabled);
  const parts = splitQualified(tool.name)!;
  return json({ name: tool.name, server: parts.server, tool: parts.name, description: tool.description ?? null, inputSchema: tool.inputSchema, ...(tool.annotations ? { annotations: tool.annotations } : {}) });
}
