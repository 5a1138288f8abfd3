// Benchmark-only `--import` preload, never part of the product: timestamps of one traced tool
// call at every hop inside the service, for the per-hop breakdown of the `overhead` scenario.
//
// A traced call carries its sequence number twice: in the HTTP header `x-bench-trace` (the main
// thread and the hub's byte pump see only bytes and heads) and at the start of the echo text,
// `trace:<seq>:` (what the hub routes to a backend worker and gets back). Each thread records
// `[seq, point, µs]` with process.hrtime (CLOCK_MONOTONIC: one clock for every thread and
// process on the machine) and appends them every 200 ms to <BENCH_TRACE_DIR>/<pid>-<thread>.ndjson.
// Untraced traffic costs a type check per message. Points (thread.what):
//   main.request       the HTTP request event (head parsed)
//   main.post.head / .body / .end   the request's head, body bytes and end posted to the hub
//                      (a whole request is one message: head and end at once)
//   hub.recv.head / .body / .end    ... received by the hub
//   hub.post.call      the call posted to the backend worker
//   backend.recv.call  ... received by the backend worker
//   backend.write      its JSON-RPC line written to the child's stdin
//   backend.read       the child's answer read from its stdout
//   backend.post.outcome / hub.recv.outcome   the outcome, sent and received
//   hub.post.chunk / main.recv.chunk          the response bytes, sent and received (and written)
//   hub.post.end / main.recv.end              the answer's end (with the bytes when they left together)
// The child's own points (child.recv, child.handler, child.write) come from fixtures/common.mjs.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { isMainThread, MessagePort, threadId } from 'node:worker_threads';

const dir = process.env.BENCH_TRACE_DIR;
const HEADER = 'x-bench-trace';
const TEXT = /trace:(\d+):/;

if (dir) {
    const file = path.join(dir, `${process.pid}-${threadId}.ndjson`);
    let lines = '';
    const mark = (seq, point) => {
        lines += `${JSON.stringify([Number(seq), point, Number(process.hrtime.bigint() / 1000n)])}\n`;
    };
    const flush = () => {
        if (!lines) return;
        fs.appendFileSync(file, lines);
        lines = '';
    };
    setInterval(flush, 200).unref();
    process.on('exit', flush);

    const seqOfRaw = (raw) => {
        for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === HEADER) return raw[i + 1];
        return null;
    };
    const seqOfText = (text) => (typeof text === 'string' ? (TEXT.exec(text.slice(0, 64))?.[1] ?? null) : null);
    const seqOfCall = (m) => seqOfText(m.params?.arguments?.text);
    const seqOfOutcome = (m) => seqOfText(m.outcome?.result?.content?.[0]?.text);
    // Byte-pump exchange ids of traced requests, per thread.
    const exchanges = new Map();

    const onPost = isMainThread
        ? (m) => {
              if (m.type === 'request') {
                  const seq = seqOfRaw(m.headers ?? []);
                  if (seq !== null) {
                      exchanges.set(m.id, seq);
                      mark(seq, 'main.post.head');
                      if (m.ended) mark(seq, 'main.post.end');
                  }
              } else if ((m.type === 'body' || m.type === 'end') && exchanges.has(m.id)) mark(exchanges.get(m.id), `main.post.${m.type}`);
          }
        : (m) => {
              if (m.type === 'call') {
                  const seq = seqOfCall(m);
                  if (seq !== null) mark(seq, 'hub.post.call');
              } else if (m.type === 'outcome') {
                  const seq = seqOfOutcome(m);
                  if (seq !== null) mark(seq, 'backend.post.outcome');
              } else if (m.type === 'answer' && exchanges.has(m.id)) {
                  const seq = exchanges.get(m.id);
                  if (m.chunks.length) mark(seq, 'hub.post.chunk');
                  if (m.end) {
                      mark(seq, 'hub.post.end');
                      exchanges.delete(m.id);
                  }
              }
          };
    const onReceive = isMainThread
        ? (m) => {
              if (m.type === 'answer' && exchanges.has(m.id)) {
                  const seq = exchanges.get(m.id);
                  if (m.chunks.length) mark(seq, 'main.recv.chunk');
                  if (m.end) {
                      mark(seq, 'main.recv.end');
                      exchanges.delete(m.id);
                  }
              }
          }
        : (m) => {
              if (m.type === 'request') {
                  const seq = seqOfRaw(m.headers ?? []);
                  if (seq !== null) {
                      exchanges.set(m.id, seq);
                      mark(seq, 'hub.recv.head');
                      if (m.ended) mark(seq, 'hub.recv.end');
                  }
              } else if ((m.type === 'body' || m.type === 'end') && exchanges.has(m.id)) mark(exchanges.get(m.id), `hub.recv.${m.type}`);
              else if (m.type === 'call') {
                  const seq = seqOfCall(m);
                  if (seq !== null) mark(seq, 'backend.recv.call');
              } else if (m.type === 'outcome') {
                  const seq = seqOfOutcome(m);
                  if (seq !== null) mark(seq, 'hub.recv.outcome');
              }
          };

    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (message, transfer) {
        if (message && typeof message === 'object' && typeof message.type === 'string') onPost(message);
        return post.call(this, message, transfer);
    };
    const wrapped = new WeakMap();
    for (const method of ['on', 'addListener', 'once']) {
        const original = MessagePort.prototype[method];
        MessagePort.prototype[method] = function (type, listener) {
            if (type !== 'message' || typeof listener !== 'function') return original.call(this, type, listener);
            let wrapper = wrapped.get(listener);
            if (!wrapper) {
                wrapper = function (message) {
                    if (message && typeof message === 'object' && typeof message.type === 'string') onReceive(message);
                    return listener.apply(this, arguments);
                };
                wrapped.set(listener, wrapper);
            }
            return original.call(this, type, wrapper);
        };
    }
    for (const method of ['off', 'removeListener']) {
        const original = MessagePort.prototype[method];
        MessagePort.prototype[method] = function (type, listener) {
            return original.call(this, type, (type === 'message' && wrapped.get(listener)) || listener);
        };
    }

    if (isMainThread) {
        // The request event: its head is parsed (the body may still be on its way).
        const emit = http.Server.prototype.emit;
        http.Server.prototype.emit = function (event, req) {
            if (event === 'request') {
                const seq = req.headers[HEADER];
                if (typeof seq === 'string') mark(seq, 'main.request');
            }
            return emit.apply(this, arguments);
        };
    } else {
        // A backend worker's pipes to its child (the hub has no sockets).
        const seqOfChunk = (chunk) => {
            if (typeof chunk === 'string') return chunk.includes('trace:') ? seqOfText(chunk.slice(chunk.indexOf('trace:'))) : null;
            if (Buffer.isBuffer(chunk)) {
                const at = chunk.indexOf('trace:');
                return at === -1 ? null : seqOfText(chunk.toString('latin1', at, at + 32));
            }
            return null;
        };
        const write = net.Socket.prototype.write;
        net.Socket.prototype.write = function (chunk) {
            const seq = seqOfChunk(chunk);
            if (seq !== null) mark(seq, 'backend.write');
            return write.apply(this, arguments);
        };
        const emit = net.Socket.prototype.emit;
        net.Socket.prototype.emit = function (event, chunk) {
            if (event === 'data') {
                const seq = seqOfChunk(chunk);
                if (seq !== null) mark(seq, 'backend.read');
            }
            return emit.apply(this, arguments);
        };
    }
}
