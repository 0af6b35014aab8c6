import type pg from 'pg';
import QueryStream from 'pg-query-stream';

/** One row of `posts`, exactly as the API shows it. */
export interface Message {
  readonly id: number;
  readonly text: string;
  readonly date_posted: string;
}

/** Rows read through a server-side cursor; `close` must be called once, however the reading ended. */
export interface Listing extends AsyncIterable<Message> {
  close(): Promise<void>;
}

export interface Messages {
  create(text: string, datePosted: string): Promise<Message>;
  get(id: number): Promise<Message | undefined>;
  remove(id: number): Promise<Message | undefined>;
  /** Newest first, for the HTML page. */
  latest(opts: { readonly before?: number; readonly limit: number }): Promise<Message[]>;
  /** Id order through a cursor; resolves once the first batch arrived, so SQL errors still become a status. */
  list(opts: { readonly after?: number; readonly limit?: number }): Promise<Listing>;
  /** Throws unless the database answers and `posts` exists. */
  ready(): Promise<void>;
}

const COLUMNS = 'id, text, date_posted';

// Separate texts rather than `$1 IS NULL OR id > $1`: a generic plan of the OR form cannot use the primary key.
const SQL = {
  create: `INSERT INTO posts (text, date_posted) VALUES ($1, $2) RETURNING ${COLUMNS}`,
  get: `SELECT ${COLUMNS} FROM posts WHERE id = $1`,
  remove: `DELETE FROM posts WHERE id = $1 RETURNING ${COLUMNS}`,
  latest: `SELECT ${COLUMNS} FROM posts ORDER BY id DESC LIMIT $1`,
  latestBefore: `SELECT ${COLUMNS} FROM posts WHERE id < $2 ORDER BY id DESC LIMIT $1`,
  // LIMIT NULL means no limit.
  list: `SELECT ${COLUMNS} FROM posts ORDER BY id LIMIT $1::bigint`,
  listAfter: `SELECT ${COLUMNS} FROM posts WHERE id > $2 ORDER BY id LIMIT $1::bigint`,
  ready: 'SELECT 1 FROM posts LIMIT 0',
} as const;

export interface MessagesOptions {
  /** Rows per cursor round trip when listing. */
  readonly batchSize?: number;
  /**
   * Run every statement inside BEGIN … COMMIT. Needed behind PGlite's socket multiplexer: it interleaves
   * clients message by message, so one client's Parse can replace another's unnamed statement between that
   * client's Parse and Bind (seen as INSERT … RETURNING returning nothing). Inside a transaction block it serves
   * only the client that opened it, and BEGIN itself is one simple-protocol message, so nothing can interleave.
   */
  readonly exclusiveStatements?: boolean;
}

/** Every statement of the board; values only ever travel as bound parameters. */
export function createMessages(pool: pg.Pool, opts: MessagesOptions = {}): Messages {
  const batchSize = opts.batchSize ?? 500;
  const query = opts.exclusiveStatements
    ? <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => inTransaction(pool, (c) => c.query<R>(sql, params))
    : <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => pool.query<R>(sql, params);
  const one = async (sql: string, params: unknown[]): Promise<Message | undefined> =>
    (await query<Message>(sql, params)).rows[0];

  return {
    async create(text, datePosted) {
      const row = await one(SQL.create, [text, datePosted]);
      if (!row) throw new Error('INSERT … RETURNING returned no row');
      return row;
    },
    get: (id) => one(SQL.get, [id]),
    remove: (id) => one(SQL.remove, [id]),
    async latest({ before, limit }) {
      const { rows } = await query<Message>(before === undefined ? SQL.latest : SQL.latestBefore, [
        limit,
        ...(before === undefined ? [] : [before]),
      ]);
      return rows;
    },
    async list({ after, limit }) {
      const sql = after === undefined ? SQL.list : SQL.listAfter;
      const params = [limit ?? null, ...(after === undefined ? [] : [after])];
      return openListing(pool, sql, params, batchSize);
    },
    async ready() {
      await query(SQL.ready, []);
    },
  };
}

async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    // ROLLBACK returns the connection clean; if even that fails the connection is discarded.
    await client.query('ROLLBACK').then(
      () => client.release(),
      (rollbackErr: unknown) => client.release(rollbackErr instanceof Error ? rollbackErr : true),
    );
    throw err;
  }
}

async function openListing(pool: pg.Pool, sql: string, params: unknown[], batchSize: number): Promise<Listing> {
  const client = await pool.connect();
  let stream: QueryStream | undefined;
  let finished = false;
  let failure: unknown;
  try {
    // A cursor's portal lives until the transaction ends. The explicit transaction also makes PGlite's socket
    // multiplexer keep other clients' statements out until COMMIT; without it they destroy the portal.
    await client.query('BEGIN READ ONLY');
    stream = client.query(new QueryStream(sql, params, { batchSize }));
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  }
  const rows = stream[Symbol.asyncIterator]() as AsyncIterator<Message>;
  const track = async (): Promise<IteratorResult<Message>> => {
    try {
      const r = await rows.next();
      if (r.done) finished = true;
      return r;
    } catch (err) {
      failure = err;
      throw err;
    }
  };
  let probe: IteratorResult<Message> | undefined;
  try {
    probe = await track();
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  }

  let closed = false;
  return {
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          if (probe) {
            const first = probe;
            probe = undefined;
            return Promise.resolve(first);
          }
          return track();
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (failure !== undefined) return client.release(failure instanceof Error ? failure : true);
      try {
        if (!finished) await destroyed(stream!);
        await client.query(finished ? 'COMMIT' : 'ROLLBACK');
        client.release();
      } catch (err) {
        // The connection's state is unknown: discard it rather than hand a half-open transaction to the next request.
        client.release(err instanceof Error ? err : true);
      }
    },
  };
}

/** Destroys a QueryStream and waits until its cursor is closed on the server. */
function destroyed(stream: QueryStream): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed) return resolve();
    stream.once('close', resolve);
    stream.once('error', reject);
    stream.destroy();
  });
}
