/**
 * The balancer's configuration under docker compose (scripts/ops/replicas/haproxy.cfg): replicas of the `api` service found
 * through Docker's DNS, up to 10. Regenerate after changing haproxy-config.ts:
 *   node --import tsx -e "import('../../replicas/scripts/ops/replicas/compose.js').then(m => process.stdout.write(m.composeHaproxyConfig()))" > scripts/ops/replicas/haproxy.cfg
 */
import { haproxyConfig, type HaproxyConfigOptions } from './haproxy-config.js';

export const COMPOSE_BACKENDS: HaproxyConfigOptions = {
  bind: '*:3000',
  backends: { kind: 'dns', service: 'api', port: 3000, max: 10, resolver: '127.0.0.11:53' },
};

export const composeHaproxyConfig = () => haproxyConfig(COMPOSE_BACKENDS);
