import { describe, expect, it } from 'vitest';
import { requestCost } from './request-cost.js';

describe('requestCost: which budget a request draws from', () => {
  it.each([
    ['/v1/odata/v4', 'discovery'],
    ['/v1/odata/v4/', 'discovery'],
    ['/v1/odata/v4/$metadata', 'discovery'],
    ['/v1/odata/v4/%24metadata', 'discovery'],
    ['/v1/openapi.json', 'discovery'],
    ['/v1/features', 'discovery'],
    ['/v1/features/', 'discovery'],
    ['/v1/features/conformance', 'discovery'],
    ['/v1/features/api', 'discovery'],
    ['/v1/features/collections', 'discovery'],
    ['/v1/features/collections/locations', 'discovery'],
    ['/v1/features/collections/observations/queryables', 'discovery'],
    ['/v1/downloads', 'discovery'],
    ['/v1/downloads/manifest.json', 'discovery'],
    ['/v1/publications', 'discovery'],
    ['/v1/features/collections/regions/items', 'discovery'],
    ['/v1/features/collections/regions/items/huc8.17020008', 'discovery'],
    // An MCP message; its tool calls' reads are requests of their own, each costed by its path.
    ['/mcp', 'discovery'],
    ['/v1/citation/Records', 'page'],
    ['/v1/downloads/files/sha256-00/x.parquet', 'file'],
    ['/v1/odata/v4/Records', 'page'],
    ['/v1/odata/v4/Observations/$count', 'page'],
    ['/v1/odata/v4/$metadataX', 'page'],
    ['/v1/features/collections/locations/items', 'page'],
    ['/v1/features/collections/locations/items/7', 'page'],
    ['/v1/export/Records', 'page'],
    ['/v1/downloads/other', 'page'],
    ['/v1/nothing-here', 'page'],
  ])('%s → %s', (path, cost) => {
    expect(requestCost(path)).toBe(cost);
  });
});
