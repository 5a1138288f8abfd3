// The "bare" baseline: a plain node:http server answering every request with the same fixed body
// (read from the file named by argv[2]) and the same content and cache headers as /health.
// Runs in its own process so it does not share the load generator's event loop. Prints
// {"port":N} on stdout once listening; exits on SIGTERM or when stdin closes.
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.argv[2]);
const server = http.createServer((_req, res) => {
    res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': body.length,
        'Cache-Control': 'no-cache, no-store, must-revalidate'
    });
    res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
