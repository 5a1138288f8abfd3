import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closestNames, editDistance } from '../../lib/shared/closest.ts';

const distances: [string, string, number][] = [
  ['', '', 0],
  ['add', '', 3],
  ['', 'add', 3],
  ['add', 'add', 0],
  ['ad', 'add', 1],
  ['adf', 'add', 1],
  ['kitten', 'sitting', 3],
  ['echo', 'ohce', 4],
];
for (const [a, b, d] of distances) test(`closest :: distance ${JSON.stringify(a)} to ${JSON.stringify(b)} is ${d}`, () => assert.is(editDistance(a, b), d));

const TOOLS = ['add', 'chatter', 'echo', 'env', 'pid', 'slow'];
const cases: [title: string, name: string, candidates: string[], expected: string[]][] = [
  ['a typo', 'ad', TOOLS, ['add', 'pid', 'env']],
  ['case is ignored', 'echo', ['ECHO', 'add'], ['ECHO', 'add']],
  ['fewer candidates than three', 'slo', ['slow'], ['slow']],
  ['no candidates', 'x', [], []],
  ['duplicates once', 'ad', ['add', 'add', 'pid'], ['add', 'pid']],
];
for (const [title, name, candidates, expected] of cases) test(`closest :: ${title}`, () => assert.equal(closestNames(name, candidates), expected));

test.run();
