/**
 * What `make start` (scripts/ops/start.ts) sets for the data API beyond config.ts's defaults. The tests that run real
 * clients under `make start`'s defaults (testing/start-defaults.ts) read it from here, so they cannot drift apart.
 */
export function makeStartApiEnv(apiPort: string | number): Record<string, string> {
  // The explorer page at /explore calls the API from the API's own origin: listing it keeps the page working
  // without a key even once keys are issued (middleware/cors.ts).
  return { CORS_ORIGINS: `http://localhost:${apiPort},http://127.0.0.1:${apiPort}` };
}
