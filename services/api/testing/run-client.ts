/** Test support: runs a real client (python3, ogr2ogr, Rscript, bash) to its end and collects what it printed. */
import { spawn } from 'node:child_process';

export interface ClientRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with the test's environment plus `env` (the server's URL, a key); rejects only when it cannot start. */
export function runClient(command: string, args: string[], env: Record<string, string>): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
