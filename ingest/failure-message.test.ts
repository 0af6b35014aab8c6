import { describe, expect, it } from 'vitest';
import { failureMessage } from './failure-message.js';

const ctx = { duckdbPath: '/srv/hub/tributary.duckdb', store: '/srv/store', publishedBytes: 3_900_000 };
const errno = (code: string, path: string, message: string) => Object.assign(new Error(message), { code, path });

describe('failureMessage', () => {
  it.each([
    {
      what: "DuckDB's full disk, naming the file it could not write",
      err: new Error('IO Error: Could not write file "/srv/hub/tributary.duckdb.files/.tmp-1-0.csv": No space left on device'),
      says: 'the file system holding /srv/hub/tributary.duckdb.files is full: free space there: a change to a published file needs room beside it for a copy of it (3.9 MB)',
      state: '/srv/hub/tributary.duckdb is unchanged and still served',
    },
    {
      what: 'the file named just before the refusal, not the first quoted text',
      err: new Error('FATAL Error: Failed: "Failed to create checkpoint because of error: Could not write file "/srv/hub/t.duckdb.tmp-9-delta": No space left on device"'),
      says: 'the file system holding /srv/hub is full',
      state: 'is unchanged and still served',
    },
    {
      what: "the store's read-only volume, from the publish lock DuckDB could not open",
      err: new Error('cannot open the publish lock /srv/store/publish.lock: IO Error: Cannot open file "/srv/store/publish.lock": Read-only file system'),
      says: 'the publication store /srv/store is read-only: remount its volume read-write, then run the same command again',
      state: "The store's CURRENT still names the publication the replicas serve",
    },
    {
      what: "Node's errno in the store",
      err: errno('ENOSPC', '/srv/store/objects/.tmp-1-ab', 'ENOSPC: no space left on device, write'),
      says: 'the publication store /srv/store is full: free space on its volume',
      state: "The store's CURRENT still names",
    },
    {
      what: 'a folder this user may not write',
      err: errno('EACCES', '/srv/hub/tributary.duckdb.lock', "EACCES: permission denied, open '/srv/hub/tributary.duckdb.lock'"),
      says: 'the file system holding /srv/hub is not writable by this user: give this user write access to it',
      state: 'is unchanged and still served',
    },
  ])('$what', ({ err, says, state }) => {
    const message = failureMessage(err, ctx);
    expect(message.split('\n')[0]).toBe(`ingest failed, nothing published: ${err.message}`);
    expect(message).toContain(says);
    expect(message).toContain(state);
  });

  it('any other failure is the error alone', () => {
    expect(failureMessage(new Error('Binder Error: no such column'), ctx)).toBe('ingest failed, nothing published: Binder Error: no such column');
  });
});
