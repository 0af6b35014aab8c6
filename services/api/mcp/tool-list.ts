/**
 * `tools/list`'s answer, built once per process (issue 56 item 3): the SDK converts every tool's zod schemas to JSON
 * Schema on each `tools/list`, several milliseconds of the event loop per message, while the answer never changes
 * (the tools and their schemas come from the catalogue and the code, not from a publication). It is asked once of a
 * server with the tools registered, over an in-memory transport, and every server made for a POST answers it from
 * here.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListToolsRequestSchema, type JSONRPCMessage, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCaller } from './api-caller.js';
import { registerTools } from './tools.js';

let built: Promise<ListToolsResult> | undefined;

/** The tools' list as the SDK writes it, computed on first use. */
export function toolList(): Promise<ListToolsResult> {
  // A failure is not kept: the next tools/list tries again.
  built ??= listOnce().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/** Makes `server` answer `tools/list` with the list built once. */
export function serveToolList(server: McpServer): void {
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolList());
}

async function listOnce(): Promise<ListToolsResult> {
  const server = new McpServer({ name: 'tool-list', version: '0' }, { capabilities: { tools: {} } });
  // Listing never calls a tool: a caller that is used is a bug.
  registerTools(server, (): ApiCaller => {
    throw new Error('tools/list called a tool');
  });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  try {
    const answer = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve));
    await client.start();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const message = (await answer) as { result?: ListToolsResult; error?: { message: string } };
    if (!message.result) throw new Error(`tools/list failed: ${message.error?.message ?? 'no result'}`);
    return message.result;
  } finally {
    await server.close();
  }
}
