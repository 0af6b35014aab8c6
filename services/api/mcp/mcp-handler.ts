/**
 * `POST /mcp`: the Model Context Protocol's Streamable HTTP transport (specification 2025-06-18 and later) on the
 * official SDK, stateless: each POST is answered on its own by a server made for it, with JSON rather than an SSE
 * stream, so no request needs the replica that answered the one before (the replicas and HAProxy route any request
 * anywhere) and nothing is held between requests. With no session there is no stream to GET and nothing to DELETE:
 * both are 405, which the specification allows.
 *
 * Read-only: the tools (tools.ts) only read, and each read is the API's own request (api-caller.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Handler } from 'hono';
import { baseUrl, type BaseUrlOptions } from '../http/links.js';
import { PATHS, PIN_PARAM } from '../http/paths.js';
import { apiCaller, type AppFetch } from './api-caller.js';
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
    const server = new McpServer({ name: MCP_SERVER_NAME, version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
    const base = baseUrl(c.req.url, c.req.raw.headers, deps.links);
    registerTools(server, () => apiCaller(c, deps.fetch, base));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, ...(deps.maxBodyBytes ? { maxRequestBodySize: deps.maxBodyBytes } : {}) });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // JSON mode: the answer is whole once handleRequest returns; nothing outlives the request.
      await server.close();
    }
  };
}
