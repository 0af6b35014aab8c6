/**
 * The metrics endpoint: `GET /metrics` in Prometheus' text format, served on its own port (METRICS_PORT, on
 * METRICS_HOST), never on the API's. Request counts per family, a publication's age and the limits' refusals are
 * an operator's business, not a client's: a separate port is kept off the public listener and its proxy by
 * construction, where a path would need every proxy in front to remember to block it.
 */
import { Hono } from 'hono';
import { PROMETHEUS_TEXT_TYPE } from '../../../schemas/prometheus-text.js';

export const METRICS_PATH = '/metrics';

export function metricsApp(render: () => string): Hono {
  const app = new Hono();
  app.get(METRICS_PATH, (c) => c.body(render(), 200, { 'Content-Type': PROMETHEUS_TEXT_TYPE, 'Cache-Control': 'no-store' }));
  app.notFound((c) => c.text(`Only ${METRICS_PATH} is served on this port.\n`, 404));
  return app;
}
