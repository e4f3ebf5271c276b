import type { DataSource } from 'typeorm';

/**
 * Where the api's pure reads go (issue 27): a streaming read replica when DATABASE_READ_URL is
 * set, else the primary. A replica lags its primary by whatever WAL it has not replayed yet, so
 * it answers only what may be a moment old — lists, a run's views and records, the bulk of an
 * event replay — and every read that must see a write just made stays on `primary`: the team
 * door, idempotency checks, anything inside a write's transaction, and (through `orPrimary`) a
 * row the replica does not have yet. Each use says why a replica read is safe there.
 */
export class ReadDb {
  constructor(
    readonly primary: DataSource,
    /** The read-only replica DataSource; null: DATABASE_READ_URL unset, every read on the primary. */
    readonly replica: DataSource | null = null,
  ) {}

  /** The replica when there is one, else the primary: for reads a moment's lag cannot make wrong. */
  get lagging(): DataSource {
    return this.replica ?? this.primary;
  }

  /**
   * A read of rows a client names by id, which it may have created a moment ago (GET right after
   * POST): from the replica, and when that finds nothing (null), the whole read again from the
   * primary — never a 404 for a row the primary has, and never a view mixing the two databases.
   */
  async orPrimary<T>(read: (ds: DataSource) => Promise<T | null>): Promise<T | null> {
    const fromReplica = await read(this.lagging);
    if (fromReplica !== null || this.replica === null) return fromReplica;
    return read(this.primary);
  }
}
