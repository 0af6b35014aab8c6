/**
 * `POST /mcp`: the Model Context Protocol's Streamable HTTP transport (specification 2025-06-18 and later) on the
 * official SDK, stateless: each POST is answered on its own by a server made for it, with JSON rather than an SSE
 * stream, so no request needs the replica that answered the one before (the replicas and HAProxy route any request
 * anywhere) and nothing is held between requests. With no session there is no stream to GET and nothing to DELETE:
 * both are 405, which the specification allows.
 *
 * Read-only: the tools (tools.ts) only read, and each read is the API's own request (api-caller.ts). The body is
 * one JSON-RPC message, never a batch (jsonrpc-message.ts), and `tools/list` is answered from a list built once
 * (tool-list.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Handler } from 'hono';
import { ApiError } from '../errors.js';
import type { BaseUrlOptions } from '../http/links.js';
import { PATHS, PIN_PARAM } from '../http/paths.js';
import { DEFAULT_MAX_BODY_BYTES, readQueryBody } from '../http/request-body.js';
import { allowedOrigin } from '../middleware/cors.js';
import { apiCaller, type AppFetch } from './api-caller.js';
import { judgeMessage } from './jsonrpc-message.js';
import { serveToolList } from './tool-list.js';
import { GOVERNING_FILTER } from './governing-default.js';
import { registerTools } from './tools.js';

export interface McpDeps {
  /** The app itself: tool calls are its requests. */
  readonly fetch: AppFetch;
  readonly links: BaseUrlOptions;
  /** MAX_BODY_BYTES: the largest JSON-RPC message read. */
  readonly maxBodyBytes?: number | undefined;
}

export const MCP_SERVER_NAME = 'tributary';
const VERSION = '1.0.0';

const INSTRUCTIONS = [
  'Tributary serves water-quality monitoring data (DataStream schema): Metadata (datasets), Locations, Observations and Records (observations with their dataset and location columns).',
  "Filters are OData $filter expressions, e.g. CharacteristicName eq 'pH' and ResultValue gt 9 and RegionId eq 'hub.pacific' and ActivityStartYear ge 2020; call describe for a resource's fields and list_values for the values a field takes.",
  'count gives exact counts; query gives at most 1,000 rows with the total, the whole result\'s URL and its exports: never present its rows as the whole result when total exceeds returned.',
  `On GuidelineComparisons the tools read the governing comparisons only (${GOVERNING_FILTER}: one verdict per result, publisher and term) unless your filter names Governing, and say so in note.`,
  `Every answer names the publication it was read from; its URLs carry ${PIN_PARAM}=<id> and answer the same while that publication is retained. Cite results with cite (or query's citation).`,
  `More: ${PATHS.llmsTxt} and ${PATHS.openapi}.`,
].join(' ');

export function mcpHandler(deps: McpDeps): Handler {
  return async function answerMcp(c) {
    const base = c.get('base');
    refuseForeignOrigin(c, base);
    const text = await readQueryBody(c, { maxBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, types: ['application/json'], holds: 'one JSON-RPC message' });
    const judged = judgeMessage(text);
    if (judged.kind === 'answer') return judged.response;
    const server = new McpServer({ name: MCP_SERVER_NAME, version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
    registerTools(server, () => apiCaller(c, deps.fetch, base));
    serveToolList(server);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      // The body was read above: the SDK gets it again as a request of its own, and the message parsed once.
      const request = new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: text, signal: c.req.raw.signal });
      return await transport.handleRequest(request, judged.kind === 'message' ? { parsedBody: judged.message } : undefined);
    } finally {
      // JSON mode: the answer is whole once handleRequest returns; nothing outlives the request.
      await server.close();
    }
  };
}

/**
 * The MCP specification's defence against DNS rebinding: a browser's request (it sends `Origin`) is served only from
 * an origin on CORS_ORIGINS (the CORS rule found it: middleware/cors.ts) or the instance's own; any other is 403.
 * Clients that are not browsers send no `Origin`.
 */
function refuseForeignOrigin(c: Context, base: string): void {
  const origin = c.req.header('origin');
  if (origin === undefined || allowedOrigin(c) !== undefined || origin.toLowerCase() === new URL(base).origin.toLowerCase()) return;
  throw new ApiError('origin_not_allowed', `Origin ${JSON.stringify(origin).slice(0, 200)} may not call ${PATHS.mcp}: only this instance's own origin and those on CORS_ORIGINS may (the MCP specification's defence against DNS rebinding). A client that is not a browser sends no Origin.`);
}
