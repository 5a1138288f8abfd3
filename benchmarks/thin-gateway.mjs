// The thinnest HTTP gateway in front of one stdio MCP server, for the `overhead` scenario: one
// thread, no sessions, no validation. A POST's body goes to the child's stdin as one line; the
// child's answer with the same id goes back as an application/json response; a notification gets
// 202; GET and DELETE get 405 (the SDK client then does without the GET stream). What it adds to a
// direct stdio call is what the HTTP legs alone cost on this machine: the floor under the service's
// added latency.
//
//   node thin-gateway.mjs <fixture.mjs> <marker>   (prints {"port":N} once listening)
import { spawn } from 'node:child_process';
import http from 'node:http';

const [fixture, marker] = process.argv.slice(2);
const child = spawn(process.execPath, [fixture, marker], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, FIXTURE_NAME: 'thin' } });
child.on('exit', () => process.exit(1));
const waiting = new Map();

let pending = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const { id } = JSON.parse(line);
    const res = waiting.get(id);
    if (!res) continue; // a notification or a request from the server: nobody waits for it here
    waiting.delete(id);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(line) });
    res.end(line);
  }
});

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    req.resume();
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const { id } = JSON.parse(body);
    if (id === undefined) res.writeHead(202).end();
    else waiting.set(id, res);
    child.stdin.write(`${body}\n`);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    child.kill('SIGTERM');
    process.exit(0);
  });
}
