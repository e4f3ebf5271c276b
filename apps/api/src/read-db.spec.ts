import type { DataSource } from 'typeorm';
import { ReadDb } from './read-db';

/** A stand-in DataSource: only its identity matters to ReadDb. */
const db = (name: string) => ({ name }) as unknown as DataSource;

describe('ReadDb', () => {
  const primary = db('primary');
  const replica = db('replica');

  it('reads on the primary when there is no replica, once', async () => {
    const reads = new ReadDb(primary);
    expect(reads.lagging).toBe(primary);
    const read = jest.fn(async () => null);
    expect(await reads.orPrimary(read)).toBeNull();
    expect(read.mock.calls).toEqual([[primary]]);
  });

  it('reads on the replica when there is one, and stops there when it finds the row', async () => {
    const reads = new ReadDb(primary, replica);
    expect(reads.lagging).toBe(replica);
    const read = jest.fn(async (ds: DataSource) => ({ from: ds }));
    expect(await reads.orPrimary(read)).toEqual({ from: replica });
    expect(read.mock.calls).toEqual([[replica]]);
  });

  it('reads again, whole, on the primary when the replica has no row yet', async () => {
    const reads = new ReadDb(primary, replica);
    const read = jest.fn(async (ds: DataSource) => (ds === primary ? { from: ds } : null));
    expect(await reads.orPrimary(read)).toEqual({ from: primary });
    expect(read.mock.calls).toEqual([[replica], [primary]]);
  });

  it('is null only when neither has the row', async () => {
    const reads = new ReadDb(primary, replica);
    expect(await reads.orPrimary(async () => null)).toBeNull();
  });
});
