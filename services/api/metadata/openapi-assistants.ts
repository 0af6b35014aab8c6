/**
 * OpenAPI for the assistants' doors (issue 49): the MCP server (`POST /mcp`, its tools named from mcp/tools.ts) and
 * the llms.txt convention's two pages.
 */
import { PATHS } from '../http/paths.js';
import { TOOLS } from '../mcp/tool-descriptions.js';

type Schema = Record<string, unknown>;

const JSON_RPC: Schema = { type: 'object', required: ['jsonrpc'], properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, method: { type: 'string' } } };
const text = (description: string): Schema => ({ 200: { description, content: { 'text/plain': { schema: { type: 'string' } } } } });

/** `/mcp`, `/llms.txt` and `/llms-full.txt`, with the error responses `errors(statuses)` gives. */
export function assistantPaths(errors: (only?: readonly number[]) => Record<string, unknown>): Record<string, Schema> {
  return {
    [PATHS.mcp]: {
      post: {
        operationId: 'postMcp',
        summary: 'The Model Context Protocol (Streamable HTTP, stateless): read-only tools for assistants, behind the same keys and limits.',
        description:
          `One JSON-RPC message per POST (initialize, tools/list, tools/call), answered as JSON; no session, so any replica answers. Tools: ${Object.keys(TOOLS).join(', ')}. ` +
          'Each tool answers with the API\'s own requests, made as the caller (its key, origin and address): each costs what that request costs, and its answer names the publication it was read from and the pinned URL of the same answer. ' +
          'A bad filter, an argument that breaks the tool\'s input schema or an `arguments` that is not an object is a tool result with isError naming it. ' +
          'A batch (a JSON array) is 400 with JSON-RPC error -32600: MCP 2025-06-18 removed batching. A browser\'s Origin must be on CORS_ORIGINS or the instance\'s own (403 origin_not_allowed). ' +
          'Its text content is a summary with the links to go on; the rows are in the structured content alone. GET and DELETE are 405 (no SSE stream, no session).',
        tags: ['Assistants'],
        requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC } } },
        responses: {
          200: { description: 'The JSON-RPC response.', content: { 'application/json': { schema: JSON_RPC } } },
          202: { description: 'A notification or response accepted.' },
          ...errors([400, 401, 403, 405, 413, 415, 429]),
        },
      },
    },
    [PATHS.llmsTxt]: {
      get: {
        operationId: 'getLlmsTxt', summary: 'llms.txt: the service for an assistant, in Markdown: resources, doors, worked examples, limits, how to cite.',
        tags: ['Assistants'], security: [], responses: { ...text('llms.txt (Markdown)'), ...errors([429]) },
      },
    },
    [PATHS.llmsFullTxt]: {
      get: {
        operationId: 'getLlmsFullTxt', summary: 'llms-full.txt: llms.txt, then every field of every resource and every operation of this document.',
        tags: ['Assistants'], security: [], responses: { ...text('llms-full.txt (Markdown)'), ...errors([429]) },
      },
    },
  };
}
