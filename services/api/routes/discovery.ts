/**
 * The documents generic tools start from: the OData service document (`/v1/odata/v4/`), `$metadata` (CSDL
 * XML), the OpenAPI 3.1 description (`/v1/openapi.json`) and the human docs page (`/`). All derive from the
 * catalogue; the static ones are built once per app.
 */
import type { Context } from 'hono';
import { resources } from '../../../schemas/index.js';
import { buildCsdl } from '../metadata/csdl.js';
import { buildOpenApi } from '../metadata/openapi.js';
import { JSON_TYPE } from '../formats.js';
import type { Mount } from '../http/mount.js';
import { PATHS } from '../http/paths.js';
import { docsPage } from './docs-page.js';

/**
 * Registers the discovery routes. Call it before the `${PATHS.odata}/:resource` route: that pattern would
 * otherwise take `$metadata` as a resource name and answer 404.
 */
export function registerDiscovery(mount: Mount): void {
  const csdl = buildCsdl();
  const base = (c: Context) => c.get('base');

  // OData 4.0 Part 1 §11.1.1: the service root answers with the service document, with or without the slash.
  const serviceDocument = (c: Context) =>
    c.body(
      JSON.stringify({
        '@odata.context': `${base(c)}${PATHS.odata}/$metadata`,
        value: resources.map((r) => ({ name: r.name, kind: 'EntitySet', url: r.name })),
      }),
      200,
      { 'Content-Type': JSON_TYPE },
    );
  mount('serviceDocument', serviceDocument);

  // Some clients percent-encode the `$` (the OData ABNF allows `%24` wherever `$` is written).
  const metadata = (c: Context) => c.body(csdl, 200, { 'Content-Type': 'application/xml; charset=utf-8' });
  mount('metadata', metadata);

  mount('openapi', (c) => c.body(JSON.stringify(buildOpenApi(base(c))), 200, { 'Content-Type': JSON_TYPE }));

  mount('docs', (c) =>
    c.body(docsPage(base(c)), 200, {
      'Content-Type': 'text/html; charset=utf-8',
      // Static HTML with one inline stylesheet: nothing else may load or run.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    }),
  );
}
