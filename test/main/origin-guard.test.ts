import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOriginGuard, isLoopback, type OriginGuardOptions, parseHostHeader } from '../../lib/main/origin-guard.ts';

const loopback: OriginGuardOptions = { listenHost: '127.0.0.1', port: 3050, allowedOrigins: [], allowedHosts: [], interfaceAddresses: ['10.0.0.5'] };
const everywhere: OriginGuardOptions = { ...loopback, listenHost: '0.0.0.0' };

type Case = [name: string, options: OriginGuardOptions, headers: { host?: string; origin?: string }, expected: null | 'forbidden_origin' | 'forbidden_host'];

const cases: Case[] = [
  ['no Origin, loopback Host: a non-browser client', loopback, { host: '127.0.0.1:3050' }, null],
  ['localhost Host', loopback, { host: 'localhost:3050' }, null],
  ['IPv6 loopback Host', loopback, { host: '[::1]:3050' }, null],
  ['Host names are case-insensitive', loopback, { host: 'LOCALHOST:3050' }, null],
  ['DNS rebinding: a foreign name on a loopback listener', loopback, { host: 'evil.example:3050' }, 'forbidden_host'],
  ['loopback name on another port', loopback, { host: 'localhost:8080' }, 'forbidden_host'],
  ['loopback name without a port', loopback, { host: 'localhost' }, 'forbidden_host'],
  ['missing Host', loopback, {}, 'forbidden_host'],
  ['malformed Host', loopback, { host: 'a b:3050' }, 'forbidden_host'],
  ['own origin', loopback, { host: '127.0.0.1:3050', origin: 'http://127.0.0.1:3050' }, null],
  ['own origin by another loopback name', loopback, { host: '127.0.0.1:3050', origin: 'http://localhost:3050' }, null],
  ['foreign origin', loopback, { host: '127.0.0.1:3050', origin: 'http://evil.example' }, 'forbidden_origin'],
  ['the rebinding request of the issue', loopback, { host: 'evil.example:3050', origin: 'http://evil.example' }, 'forbidden_host'],
  ['own host on another port is another origin', loopback, { host: '127.0.0.1:3050', origin: 'http://localhost:6274' }, 'forbidden_origin'],
  ['https is another origin', loopback, { host: '127.0.0.1:3050', origin: 'https://localhost:3050' }, 'forbidden_origin'],
  ['opaque origin "null"', loopback, { host: '127.0.0.1:3050', origin: 'null' }, 'forbidden_origin'],
  ['Inspector admitted with one flag', { ...loopback, allowedOrigins: ['http://localhost:6274'] }, { host: 'localhost:3050', origin: 'http://localhost:6274' }, null],
  ['allowed origins keep the own one', { ...loopback, allowedOrigins: ['http://localhost:6274'] }, { host: 'localhost:3050', origin: 'http://localhost:3050' }, null],
  ['allowed origin matched after normalization', { ...loopback, allowedOrigins: ['HTTP://LocalHost:6274/'] }, { host: 'localhost:3050', origin: 'http://localhost:6274' }, null],
  ['* admits every origin', { ...loopback, allowedOrigins: ['*'] }, { host: 'localhost:3050', origin: 'http://evil.example' }, null],
  ['allowed host on a loopback listener', { ...loopback, allowedHosts: ['agent.test'] }, { host: 'agent.test:3050' }, null],
  ['allowed host with a port only on that port', { ...loopback, allowedHosts: ['agent.test:443'] }, { host: 'agent.test:3050' }, 'forbidden_host'],
  ['* admits every host', { ...loopback, allowedHosts: ['*'] }, { host: 'evil.example:3050' }, null],
  ['a wildcard listener checks no Host by default', everywhere, { host: 'gateway.internal:3050' }, null],
  ['a wildcard listener admits origins of its interfaces', everywhere, { host: 'x', origin: 'http://10.0.0.5:3050' }, null],
  ['a wildcard listener still checks Origin', everywhere, { host: 'x', origin: 'http://evil.example' }, 'forbidden_origin'],
  ['a wildcard listener with allowed hosts checks them', { ...everywhere, allowedHosts: ['gateway.internal'] }, { host: 'evil.example:3050' }, 'forbidden_host'],
  ['IPv6 loopback listener and origin', { ...loopback, listenHost: '::1' }, { host: '[::1]:3050', origin: 'http://[::1]:3050' }, null],
];

for (const [name, options, headers, expected] of cases) {
  test(`origin guard :: ${name}`, () => {
    const rejection = createOriginGuard(options)(headers);
    assert.is(rejection?.body.error ?? null, expected);
    if (rejection) assert.is(rejection.status, 403);
  });
}

test('origin guard :: the 403 body names the header and how to admit it', () => {
  const guard = createOriginGuard(loopback);
  assert.equal(guard({ host: '127.0.0.1:3050', origin: 'http://evil.example' })?.body, {
    error: 'forbidden_origin',
    message: 'Origin header "http://evil.example" is not allowed; admit it with --allowed-origins http://evil.example',
  });
  // An opaque origin cannot be named in --allowed-origins (the option refuses "null"): the advice says so.
  assert.equal(guard({ host: '127.0.0.1:3050', origin: 'null' })?.body, {
    error: 'forbidden_origin',
    message: `Origin header "null" is not allowed: it names no site, so --allowed-origins cannot admit it by name ('*' admits every origin)`,
  });
  assert.equal(guard({ host: 'evil.example:3050' })?.body, {
    error: 'forbidden_host',
    message: 'Host header "evil.example:3050" is not allowed: expected localhost, 127.0.0.1 or [::1] with port 3050, or a host given with --allowed-hosts',
  });
});

test('origin guard :: loopback names and Host headers', () => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'app.localhost']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '10.0.0.1', 'example.com', '::']) assert.not.ok(isLoopback(h), h);
  assert.equal(parseHostHeader('[::1]:3050'), { host: '::1', port: 3050 });
  assert.equal(parseHostHeader('Example.COM'), { host: 'example.com', port: null });
  assert.is(parseHostHeader('a:b:c'), null);
});

test('origin guard :: on port 80 the own origin is the one a browser sends, without the port', () => {
  const guard = createOriginGuard({ ...loopback, port: 80 });
  assert.is(guard({ host: 'localhost:80', origin: 'http://localhost' }), null);
  assert.is(guard({ host: 'localhost', origin: 'http://localhost' }), null, 'the Host a browser sends for port 80');
  assert.ok(guard.named('http://localhost'));
});

test('origin guard :: CORS goes to the origins named (the own ones, --allowed-origins entries), never by `*`, never to `null`', () => {
  const named = createOriginGuard({ ...loopback, allowedOrigins: ['http://localhost:6274'] }).named;
  assert.ok(named('http://localhost:6274'));
  assert.ok(named('http://localhost:3050'), 'the service itself');
  assert.not.ok(named('http://evil.example'));
  const any = createOriginGuard({ ...loopback, allowedOrigins: ['*'] });
  assert.is(any({ host: 'localhost:3050', origin: 'http://evil.example' }), null, '* admits the request');
  assert.not.ok(any.named('http://evil.example'), 'but gives no page the right to read the answer');
  assert.not.ok(any.named('null'));
});

test.run();
