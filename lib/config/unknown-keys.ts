// Keys a version does not know: ignored with a warning (a file written for a newer version, or for
// another gateway, still loads), unless one is a near miss of a known key (`requestTimout`,
// `Env`): that is a typo whose setting would silently fall back to its default, so it is an error.
import { editDistance } from '../shared/closest.ts';
import type { ConfigProblem } from './errors.ts';

/** The known key `key` most likely stands for, if it is that close: case aside, one edit for a short key, two for a longer one. */
export function meantKey(key: string, known: Iterable<string>): string | null {
  const wanted = key.toLowerCase();
  let best: { key: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= (candidate.length <= 4 ? 1 : 2) && (best === null || distance < best.distance)) best = { key: candidate, distance };
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
