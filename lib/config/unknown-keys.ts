// Keys a version does not know: ignored with a warning (a file written for a newer version, or for
// another client such as Claude Desktop, VS Code, Cursor or 1mcp, still loads), unless one is a
// near miss of a known key (`requestTimout`, `RequestTimeout`): a typo whose setting would fall back
// to its default without a word, so it is an error naming the key it stands for.
import { editDistance } from '../shared/closest.ts';
import type { ConfigProblem } from './errors.ts';

// Keys other clients' files use, never typos of ours (`envFile` is not `envFilter`, `comment` not `command`).
const FOREIGN_KEYS = new Set([
  'alwaysAllow', 'autoApprove', 'comment', 'comments', 'description', 'enabled', 'envFile', 'httpUrl', 'icon', 'id',
  'includeTools', 'excludeTools', 'name', 'serverUrl', 'transport', 'transportType', 'trust', 'version', 'note', 'notes',
]);
// Shorter keys are matched by letter case only: at this length one edit makes another word (`cmd`, `path`).
const MIN_FUZZY_LENGTH = 5;

/** The known key `key` most likely stands for, if it is a near miss: the same but for letter case, or one edit away (two for a key of more than 7 characters). */
export function meantKey(key: string, known: Iterable<string>): string | null {
  const wanted = key.toLowerCase();
  const candidates = [...known];
  const sameLetters = candidates.find((candidate) => candidate.toLowerCase() === wanted);
  if (sameLetters !== undefined) return sameLetters;
  if (FOREIGN_KEYS.has(key) || key.length < MIN_FUZZY_LENGTH) return null;
  const limit = key.length > 7 ? 2 : 1;
  let best: { key: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= limit && (best === null || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key ?? null;
}

export type UnknownKeys = { ignored: string[]; problems: Omit<ConfigProblem, 'file'>[] };

/** The keys of `value` that `known` lacks: near misses as problems at `where`, the others to be ignored. */
export function unknownKeys(value: object, known: ReadonlySet<string>, where: string): UnknownKeys {
  const ignored: string[] = [];
  const problems: UnknownKeys['problems'] = [];
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    const meant = meantKey(key, known);
    if (meant === null) ignored.push(key);
    else problems.push({ path: where ? `${where}.${key}` : key, expected: `a known key (did you mean ${meant}?)`, found: `the key ${JSON.stringify(key)}` });
  }
  return { ignored, problems };
}
