/** One structured log line; the board writes JSON objects, one per line, and nothing else. */
export type Log = (entry: Readonly<Record<string, unknown>>) => void;

export const jsonLog =
  (write: (line: string) => void): Log =>
  (entry) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

export const silentLog: Log = () => {};

/** What a log line may say about an error: its class, message and SQLSTATE, never a stack. */
export function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) };
  const code = (err as { code?: unknown }).code;
  return { error: err.message, errorName: err.name, ...(typeof code === 'string' ? { errorCode: code } : {}) };
}
