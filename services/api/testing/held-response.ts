/** Test support: a client that starts a response and stops reading it, as a stalled or slow client does. */
import { request } from 'node:http';

export interface HeldResponse {
  readonly status: number;
  /** Ends the request: until then the response stays in flight on the server. */
  close(): void;
}

/** Starts `path` (from `localAddress`, a loopback address of its own, when given) and pauses after its first bytes. */
export function holdResponse(port: number, path: string, headers: Record<string, string> = {}, localAddress?: string): Promise<HeldResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false, ...(localAddress ? { localAddress } : {}) }, (res) => {
      res.once('data', () => {
        res.pause();
        resolve({ status: res.statusCode!, close: () => req.destroy() });
      });
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}
