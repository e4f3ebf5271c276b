import { createServer } from 'node:net';
import { openMigratedDataSource } from '@roundtable/persistence';
import { connectRedis } from './connect-redis';

jest.setTimeout(20_000);

/** A port nothing listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a service that cannot reach a dependency at start', () => {
  it('says Redis, REDIS_URL and the address with the password redacted, not a bare ECONNREFUSED', async () => {
    const port = await closedPort();
    const started = Date.now();
    const err = (await connectRedis(`redis://:s3cret@127.0.0.1:${port}`, 1000).catch((e: Error) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(new RegExp(`^cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) within 1000 ms: .*ECONNREFUSED.*; start Redis or set REDIS_URL`));
    expect(err.message).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('connects to a Redis that answers', async () => {
    const redis = await connectRedis(process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379');
    try {
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('says Postgres, DATABASE_URL and the address with the password redacted', async () => {
    const port = await closedPort();
    const err = (await openMigratedDataSource(`postgres://rt:s3cret@127.0.0.1:${port}/roundtable`).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(new RegExp(`^cannot reach Postgres at postgres://rt:\\*\\*\\*@127\\.0\\.0\\.1:${port}/roundtable \\(DATABASE_URL\\): .*ECONNREFUSED.*; start Postgres or set DATABASE_URL`));
    expect(err.message).not.toContain('s3cret');
  });
});
