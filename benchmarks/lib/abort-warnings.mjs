// Importing this drops one warning from the process: undici's Request adds a listener to the MCP
// SDK transport's shared AbortSignal per request and removes it only when that Request is
// garbage-collected, so a fast closed loop of calls in a process with a large young generation
// passes 1,500 before a GC and Node warns of a leak once per request after that (a thousand lines
// in one round's log). The listeners do go at the next GC. Every other warning is printed as Node
// would. Imported by every harness module that makes SDK clients (lib/mcp.ts, mcp-load.mjs,
// plain-spawn.mjs), before it makes one; plain JavaScript so that scripts run without tsx can too.
const printers = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('abort listeners added to [AbortSignal]')) return;
    for (const print of printers) print(warning);
});
