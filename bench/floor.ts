import { Job, Queue, Worker } from 'bullmq';
import { Pool } from 'pg';
import { agentQueueName, QUEUE } from '@roundtable/contracts';
import { createRedisConnection, QUEUE_DEFAULTS, type RedisClient, queuePrefix } from '@roundtable/queues';

export interface FloorOptions {
  redisUrl: string;
  /** A scratch database: the floor creates its own table in it. */
  databaseUrl: string;
  /** A queue prefix of its own, so the floor never sees the services' jobs. */
  prefix: string;
  /** BullMQ worker concurrency on each of the two queues (the services get the same). */
  concurrency: number;
  /** Postgres connections (the services' TypeORM pools use node-postgres' default, 10). */
  poolSize: number;
}

interface StepJob {
  phase: string;
  chain: number;
  step: number;
  steps: number;
}

interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
}

const TABLE = 'bench_floor_steps';
const chainKey = (phase: string, chain: number) => `${phase}:${chain}`;

/**
 * The floor: the least one orchestration step can cost on this machine with this transport
 * and this store. Each step is one Postgres transaction inserting one row, made by a worker
 * on an orchestrator-like queue, which then sends a job to a role queue whose worker sends
 * it straight back. Nothing else: no state load, no decide(), no outbox, no provider.
 * Same Redis, Postgres, BullMQ job options (QUEUE_DEFAULTS) and pool size as the services.
 */
export class Floor {
  private readonly waiting = new Map<string, Waiter>();

  private constructor(
    private readonly pool: Pool,
    private readonly connections: RedisClient[],
    private readonly queues: Queue[],
    private readonly workers: Worker[],
  ) {}

  static async start(opts: FloorOptions): Promise<Floor> {
    const pool = new Pool({ connectionString: opts.databaseUrl, max: opts.poolSize, application_name: 'roundtable-bench-floor' });
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (
         id bigserial PRIMARY KEY,
         phase text NOT NULL,
         chain integer NOT NULL,
         step integer NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now())`,
    );
    // Two "processes" worth of connections: the orchestrator-like side and the role side.
    const orchConn = createRedisConnection(opts.redisUrl);
    const roleConn = createRedisConnection(opts.redisUrl);
    const roleQueueName = agentQueueName('floor');
    const toRole = new Queue(roleQueueName, { connection: orchConn, prefix: queuePrefix(opts.prefix, roleQueueName) });
    const toOrch = new Queue(QUEUE.orchestrator, { connection: roleConn, prefix: queuePrefix(opts.prefix, QUEUE.orchestrator) });

    const floor = new Floor(pool, [orchConn, roleConn], [toRole, toOrch], []);
    const orchWorker = new Worker(
      QUEUE.orchestrator,
      async (job: Job<StepJob>) => {
        const { phase, chain, step, steps } = job.data;
        await floor.transaction(phase, chain, step);
        if (step < steps) {
          await toRole.add('agent.call', job.data, { ...QUEUE_DEFAULTS.agent.job, jobId: `${phase}-c${chain}-s${step}-call` });
        } else {
          floor.finish(phase, chain);
        }
      },
      { connection: orchConn, prefix: queuePrefix(opts.prefix, QUEUE.orchestrator), ...QUEUE_DEFAULTS.orchestrator.worker, concurrency: opts.concurrency },
    );
    const roleWorker = new Worker(
      roleQueueName,
      async (job: Job<StepJob>) => {
        const next = { ...job.data, step: job.data.step + 1 };
        await toOrch.add('agent.done', next, { ...QUEUE_DEFAULTS.orchestrator.job, jobId: `${next.phase}-c${next.chain}-s${next.step}-done` });
      },
      { connection: roleConn, prefix: queuePrefix(opts.prefix, roleQueueName), ...QUEUE_DEFAULTS.agent.worker, concurrency: opts.concurrency },
    );
    for (const w of [orchWorker, roleWorker]) {
      w.on('failed', (job, err) => job && floor.fail(job.data.phase, job.data.chain, err));
      floor.workers.push(w);
    }
    await Promise.all([orchWorker.waitUntilReady(), roleWorker.waitUntilReady()]);
    return floor;
  }

  /**
   * Runs `chains` chains of `steps` round trips each (steps + 1 transactions), all at once
   * when `concurrent`, else one after another; numbered from `firstChain`, so a phase can be
   * run in several parts. Returns the wall time in ms: from the first
   * enqueue to the last commit (sequential: the sum over chains).
   */
  async run(phase: string, chains: number, steps: number, concurrent: boolean, firstChain = 0): Promise<number> {
    const one = async (chain: number) => {
      const started = performance.now();
      const done = new Promise<void>((resolve, reject) => this.waiting.set(chainKey(phase, chain), { resolve, reject }));
      await this.queues[1].add('run.start', { phase, chain, step: 0, steps } satisfies StepJob, {
        ...QUEUE_DEFAULTS.orchestrator.job,
        jobId: `${phase}-c${chain}-start`,
      });
      await done;
      return performance.now() - started;
    };
    if (concurrent) {
      const started = performance.now();
      await Promise.all(Array.from({ length: chains }, (_, i) => one(firstChain + i)));
      return performance.now() - started;
    }
    let total = 0;
    for (let i = 0; i < chains; i++) total += await one(firstChain + i);
    return total;
  }

  /** Per-step latency in ms: from one step's BEGIN to the next step's BEGIN in the same chain (Postgres now()). */
  async samples(phase: string): Promise<number[]> {
    const { rows } = await this.pool.query<{ ms: string }>(
      `SELECT ms FROM (
         SELECT extract(epoch FROM created_at - lag(created_at) OVER (PARTITION BY chain ORDER BY step)) * 1000 AS ms
           FROM ${TABLE} WHERE phase = $1) s
        WHERE ms IS NOT NULL`,
      [phase],
    );
    return rows.map((r) => Number(r.ms));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all(this.queues.map((q) => q.close()));
    for (const c of this.connections) c.disconnect();
    await this.pool.end();
  }

  private async transaction(phase: string, chain: number, step: number): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${TABLE} (phase, chain, step) VALUES ($1, $2, $3)`, [phase, chain, step]);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  private finish(phase: string, chain: number): void {
    const key = chainKey(phase, chain);
    this.waiting.get(key)?.resolve();
    this.waiting.delete(key);
  }

  private fail(phase: string, chain: number, err: Error): void {
    const key = chainKey(phase, chain);
    this.waiting.get(key)?.reject(new Error(`floor chain ${key} failed: ${err.message}`));
    this.waiting.delete(key);
  }
}
