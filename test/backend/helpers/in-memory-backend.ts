// A real SDK server and a real SDK client joined in memory (the SDK's InMemoryTransport), 2025
// era: for the parts of a backend worker that speak to a connected client.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';

export async function connectedPair(build: (server: McpServer) => void, capabilities: Record<string, unknown>): Promise<{ client: Client; server: McpServer; close(): Promise<void> }> {
  const server = new McpServer({ name: 'in-memory', version: '1.0.0' }, { capabilities });
  build(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(clientSide);
  return { client, server, close: async () => void (await client.close(), await server.close()) };
}
