// A backend's priority: the service's --worker-nice, or the server's own `nice` when lower
// (a higher number); a server asking for more priority than that is told it does not get it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendSpec } from '../../lib/shared/backend-spec.ts';
import { backendNice, niceNotGiven } from '../../lib/main/backend-nice.ts';

const stdio = (nice?: number) => ({ type: 'stdio', name: 's', ...(nice === undefined ? {} : { nice }) }) as unknown as BackendSpec;
const remote = { type: 'http', name: 'r' } as unknown as BackendSpec;

const TABLE: [string, BackendSpec, number, number, boolean][] = [
  // what, spec, --worker-nice, the nice it runs at, warned
  ['no nice of its own: the service\'s', stdio(), 10, 10, false],
  ['a lower priority than the service\'s: its own', stdio(15), 10, 15, false],
  ['the same as the service\'s', stdio(10), 10, 10, false],
  ['a higher priority than the service\'s: not given, said', stdio(3), 10, 10, true],
  ['nice 0 under --worker-nice 0', stdio(0), 0, 0, false],
  ['a remote server: the service\'s', remote, 7, 7, false],
];

for (const [what, spec, workerNice, runs, warned] of TABLE) {
  test(`backend nice :: ${what}`, () => {
    assert.is(backendNice(spec, workerNice), runs);
    assert.is(niceNotGiven(spec, workerNice) !== null, warned);
  });
}

test('backend nice :: the warning names the server, both values and what it runs at', () => {
  const warning = niceNotGiven(stdio(3), 10)!;
  assert.equal(warning.fields, { backend: 's', nice: 3, workerNice: 10 });
  assert.match(warning.message, /^nice 3 is below the service's --worker-nice 10: the backend runs at 10 /);
});

test.run();
