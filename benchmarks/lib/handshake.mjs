// The handshake the yardstick scripts (plain-spawn.mjs, floor/) make with each backend: the SDK
// client's version negotiation, then, for `service`, the lists the backend's capabilities announce,
// as the service's backend worker reads them before it reports a backend connected
// (lib/backend/read-inventory.ts). Plain JavaScript: these scripts run without tsx.

/** `versionNegotiation.mode` of the SDK client for a `protocolVersion` of mcp.json. */
export function negotiationMode(negotiation) {
    return negotiation === '2026-07-28' ? { pin: negotiation } : negotiation;
}

export async function readLists(client) {
    const caps = client.getServerCapabilities() ?? {};
    await Promise.all([
        caps.tools ? client.listTools() : null,
        caps.resources ? client.listResources() : null,
        caps.prompts ? client.listPrompts() : null,
        caps.resources ? client.listResourceTemplates() : null
    ]);
}

/** Takes `--handshake` and `--negotiation` out of argv (changed in place). */
export function handshakeOptions(argv) {
    const option = (name, fallback, allowed) => {
        const i = argv.indexOf(name);
        if (i === -1) return fallback;
        const value = argv.splice(i, 2)[1];
        if (!allowed.includes(value)) throw new Error(`${name}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
        return value;
    };
    const handshake = option('--handshake', 'initialize', ['service', 'initialize']);
    const negotiation = option('--negotiation', handshake === 'service' ? 'auto' : 'legacy', ['auto', 'legacy', '2026-07-28']);
    return { handshake, negotiation };
}
