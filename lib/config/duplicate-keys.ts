// Keys written twice in one object of mcp.json. JSON readers keep the last and drop the other
// without a word, so a copied entry not renamed made the first server vanish. Found with
// jsonc-parser's `visit` (recursive: run only on a text json-depth.ts has passed). Pure.
import { type JSONPath, visit } from 'jsonc-parser';
import { type ConfigProblem, jsonPath } from './errors.ts';
import type { LoadedConfig } from './types.ts';

/** A key found again in the same object: where the object is, the first occurrence and this one (the one used). */
export type DuplicateKey = { path: JSONPath; key: string; first: number; line: number; column: number };

/** Every repeated key of a JSON text, in text order (a key written three times is two entries, each against the first). */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const open: Map<string, number>[] = [];
  const found: DuplicateKey[] = [];
  visit(
    text,
    {
      onObjectBegin: () => void open.push(new Map()),
      onObjectEnd: () => void open.pop(),
      onObjectProperty: (key, _offset, _length, startLine, startCharacter, pathSupplier) => {
        const keys = open[open.length - 1];
        if (!keys) return;
        const first = keys.get(key);
        if (first === undefined) keys.set(key, startLine + 1);
        else found.push({ path: pathSupplier(), key, first, line: startLine + 1, column: startCharacter + 1 });
      },
    },
    { disallowComments: true },
  );
  return found;
}

/** The JSON path of the repeated key itself (`mcpServers.one`). */
export const duplicatePath = (d: DuplicateKey): string => jsonPath([...d.path, d.key] as PropertyKey[]);

/** What the reader is told of a duplicate that only warns: the last one is used, as JSON readers do. */
export function duplicateWarning(file: string, d: DuplicateKey): string {
  return `${file}: the key ${JSON.stringify(d.key)} is written twice in ${d.path.length ? jsonPath(d.path as PropertyKey[]) : 'the top-level object'} (lines ${d.first} and ${d.line}): the one at line ${d.line} is used, the other is ignored`;
}

/**
 * The duplicates that would drop a server without a word are problems, not warnings: a server
 * name twice in mcpServers (that entry is invalid: a server already running keeps its last good
 * entry, and /health shows the error) and mcpServers itself twice (the file is rejected).
 */
export function duplicateProblem(file: string, d: DuplicateKey): ConfigProblem | null {
  const where = { file, path: duplicatePath(d), line: d.line, column: d.column };
  if (d.path.length === 0 && d.key === 'mcpServers') return { ...where, expected: 'one mcpServers object (the servers of the other would be dropped)', found: `a second one (lines ${d.first} and ${d.line})` };
  if (d.path.length === 1 && d.path[0] === 'mcpServers') return { ...where, expected: 'each server name once in mcpServers (one of the two entries would be dropped)', found: `the name ${JSON.stringify(d.key)} twice (lines ${d.first} and ${d.line})` };
  return null;
}

/** A loaded configuration with its duplicates reported: warnings in the document's, a server name twice makes that entry invalid. */
export function withDuplicates(config: LoadedConfig, duplicates: readonly DuplicateKey[]): LoadedConfig {
  if (!duplicates.length) return config;
  const warnings = [...config.warnings];
  const servers = config.servers.slice();
  for (const d of duplicates) {
    const problem = duplicateProblem(config.file, d);
    if (!problem) {
      warnings.push(duplicateWarning(config.file, d));
      continue;
    }
    const at = servers.findIndex((slot) => slot.name === d.key);
    if (at < 0) continue;
    const { name, tags, disabled, problems = [] } = servers[at]!;
    servers[at] = { name, tags, disabled, problems: [problem, ...problems], warnings: [] };
  }
  return { ...config, servers, warnings };
}
