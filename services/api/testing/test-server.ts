/** Test support: an app on a real loopback socket with an ephemeral port. */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  readonly server: ServerType;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

export async function listen(app: { fetch: (req: Request) => Response | Promise<Response> }, serverOptions?: object): Promise<TestServer> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', ...(serverOptions ? { serverOptions } : {}) });
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
