/**
 * `npm run bench:sse`: the event stream of one api process (dist/apps/api, started as its own
 * process, as in production), on a scratch database and queue prefix removed at the end.
 * Not a jest test: it prints figures and checks them against the targets of issue 5.
 *
 * (a) Replay: a run holding 10,000 events, streamed to one client from the start; time from
 *     the request to the terminal event (the last frame). Once cold, then BENCH_SSE_REPLAYS warm.
 * (b) Live fan-out: BENCH_SSE_CLIENTS SSE subscribers on the api (node:http, one keep-alive
 *     agent, minimal frame parsing), held in a worker thread so that their parsing does not
 *     delay this thread's commits. This thread appends events at a steady rate (one phase
 *     per rate in BENCH_SSE_RATES, so the figures show where one process saturates), each in its
 *     own transaction through appendRunEvents and published after the commit by
 *     RunEventPublisher, exactly as the orchestrator does. Latency per event per client: the
 *     time the client parsed the frame minus the time the COMMIT returned (one clock: both
 *     threads use performance.timeOrigin + performance.now()). Each payload carries
 *     `t_commit_ms`, stamped just before COMMIT; latencies from it are printed too.
 *
 * Knobs (env): BENCH_SSE_REPLAY_EVENTS (10000), BENCH_SSE_REPLAYS (5), BENCH_SSE_CLIENTS (500),
 * BENCH_SSE_RATES (events/s of each phase, 10,25,50), BENCH_SSE_SECONDS (per phase, 10),
 * BENCH_SSE_WARMUP (events before the first phase, not measured, 20),
 * BENCH_SSE_API_NODE_OPTIONS (NODE_OPTIONS of the api, e.g. --cpu-prof), TEST_DATABASE_URL, TEST_REDIS_URL.
 */
import { Agent, get } from 'node:http';
import { cpus, hostname, loadavg } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import IORedis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { NewRunEvent } from '@roundtable/contracts';
import { appendRunEvents, RunEventPublisher } from '@roundtable/events';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase } from '@roundtable/persistence';
import { deleteRedisPrefix, freePort, randomQueuePrefix, RunningService, startService, stopService, TEST_REDIS_URL } from '@roundtable/testing';
import { processCpuMs } from './cpu-usage';
import { percentile } from './stats';

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return n;
};

const REPLAY_EVENTS = intEnv('BENCH_SSE_REPLAY_EVENTS', 10_000);
const REPLAYS = intEnv('BENCH_SSE_REPLAYS', 5);
const CLIENTS = intEnv('BENCH_SSE_CLIENTS', 500);
const RATES = (process.env.BENCH_SSE_RATES || '10,25,50').split(',').map((r) => {
  const n = Number(r.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_SSE_RATES must be whole numbers of events/s separated by commas, got "${r}"`);
  return n;
});
const SECONDS = intEnv('BENCH_SSE_SECONDS', 10);
const WARMUP = intEnv('BENCH_SSE_WARMUP', 20);
const API_NODE_OPTIONS = process.env.BENCH_SSE_API_NODE_OPTIONS ?? '';

const TARGET_REPLAY_MS = 500;
const TARGET_P99_MS = 50;

/** Wall-clock ms with sub-ms precision, comparable across this process's threads. */
const now = () => performance.timeOrigin + performance.now();
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const log = (line = '') => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// A minimal SSE client: only each frame's id and event name are read, so the client's own
// parsing adds as little as possible to what is measured.

interface MinimalStream {
  status: number;
  body: string;
  ended: Promise<void>;
}

/** Calls onEvent(sequence, eventName, receivedAt) per event frame; heartbeats and `retry:` are skipped. */
function followMinimal(url: string, agent: Agent | undefined, onEvent: (seq: number, event: string, at: number) => void): Promise<MinimalStream> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      let ended!: () => void;
      const stream: MinimalStream = { status: res.statusCode ?? 0, body: '', ended: new Promise((r) => (ended = r)) };
      let rest = '';
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) {
          stream.body += chunk;
          return;
        }
        const at = now();
        const text = rest ? rest + chunk : chunk;
        let start = 0;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n', start)) {
          if (text.startsWith('id: ', start)) {
            const nl = text.indexOf('\n', start);
            const ev = text.indexOf('\n', nl + 1);
            onEvent(parseInt(text.slice(start + 4, nl), 10), text.slice(nl + 8, ev), at);
          }
          start = end + 2;
        }
        rest = text.slice(start);
      });
      res.on('close', () => ended());
      if (stream.status === 200) resolve(stream);
      else res.on('end', () => resolve(stream));
    });
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------
// Client side of (b), in a worker thread

interface ClientsData {
  role: 'clients';
  url: string;
  clients: number;
}

interface ClientsResult {
  /** Per delivery: the event's sequence and when the client parsed it. */
  seqs: Int32Array;
  times: Float64Array;
  delivered: number;
  /** Frames that arrived out of order or twice, over all clients. */
  misordered: number;
  /** Clients whose stream the server ended (it does after the terminal event). */
  ended: number;
  failedToConnect: string[];
}

async function runClients({ url, clients }: ClientsData): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1000 });
  let seqs = new Int32Array(1 << 16);
  let times = new Float64Array(1 << 16);
  let n = 0;
  let misordered = 0;
  const record = (seq: number, t: number) => {
    if (n === seqs.length) {
      const s = new Int32Array(seqs.length * 2);
      s.set(seqs);
      seqs = s;
      const tt = new Float64Array(times.length * 2);
      tt.set(times);
      times = tt;
    }
    seqs[n] = seq;
    times[n] = t;
    n++;
  };
  const failedToConnect: string[] = [];
  const ends: Promise<void>[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      let last = 0;
      try {
        const conn = await followMinimal(url, agent, (seq, _event, t) => {
          if (seq !== last + 1) misordered++;
          last = seq;
          record(seq, t);
        });
        if (conn.status !== 200) failedToConnect.push(`HTTP ${conn.status}: ${conn.body.slice(0, 200)}`);
        else ends.push(conn.ended);
      } catch (e) {
        failedToConnect.push((e as Error).message);
      }
    }),
  );
  // Headers arrive after the api has subscribed: from here on every commit reaches every client.
  parentPort!.postMessage({ kind: 'ready', connected: ends.length, failedToConnect });
  await Promise.all(ends);
  agent.destroy();
  const result: ClientsResult = { seqs: seqs.slice(0, n), times: times.slice(0, n), delivered: n, misordered, ended: ends.length, failedToConnect };
  parentPort!.postMessage({ kind: 'done', result }, [result.seqs.buffer as ArrayBuffer, result.times.buffer as ArrayBuffer]);
}

// ---------------------------------------------------------------------------------------------
// Bench side

async function insertRun(ds: DataSource, tag: string): Promise<string> {
  const projectId = `prj_bench_${tag}`;
  const runId = `run_bench_${tag}`;
  await ds.getRepository(ProjectEntity).insert({ id: projectId, name: 'sse-bench', objective: 'bench', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
  await ds.getRepository(RunEntity).insert({ id: runId, projectId, workflow: 'build', status: 'running', stage: 'IMPLEMENT', config: {} } as QueryDeepPartialEntity<RunEntity>);
  return runId;
}

/** A realistic event: what the orchestrator writes when an agent call comes back. */
function callCompleted(i: number): NewRunEvent {
  return {
    type: 'agent_call_completed',
    payload: {
      call_id: `run_bench_replay-c${i}`,
      stage: 'CRITIQUE',
      role: 'critic',
      provider: 'replay',
      model: 'grok-4',
      attempt: 1,
      label: `C${i}`,
      valid: true,
      input_tokens: 1834,
      output_tokens: 412,
      cost_usd: 0.0123,
      latency_ms: 2140,
      gist: 'REVISE: the proposal ignores an empty series and the series that ends at its trough',
    },
  };
}

async function replayOnce(api: string, runId: string, total: number): Promise<{ ms: number; firstMs: number }> {
  const started = now();
  let first = 0;
  let count = 0;
  let last = 0;
  let terminalAt = 0;
  let misordered = 0;
  const conn = await followMinimal(`${api}/v1/runs/${runId}/events`, undefined, (seq, event, at) => {
    if (count === 0) first = at;
    count++;
    if (seq !== last + 1) misordered++;
    last = seq;
    if (event === 'run_completed') terminalAt = at;
  });
  if (conn.status !== 200) throw new Error(`replay answered ${conn.status}: ${conn.body}`);
  await conn.ended;
  if (count !== total || !terminalAt || misordered) {
    throw new Error(`replay delivered ${count} of ${total} events, ${misordered} out of order${terminalAt ? '' : ', no terminal event'}`);
  }
  return { ms: terminalAt - started, firstMs: first - started };
}

async function benchReplay(ds: DataSource, api: string, apiPid: number | undefined): Promise<boolean> {
  const runId = await insertRun(ds, 'replay');
  const t0 = now();
  for (let from = 1; from < REPLAY_EVENTS; from += 1000) {
    const n = Math.min(1000, REPLAY_EVENTS - from);
    await ds.transaction((em) => appendRunEvents(em, runId, Array.from({ length: n }, (_, i) => callCompleted(from + i))));
  }
  await ds.transaction((em) => appendRunEvents(em, runId, [{ type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.8 } }]));
  log(`(a) seeded ${REPLAY_EVENTS.toLocaleString('en-US')} events in ${fmt(now() - t0, 0)} ms`);

  const cold = await replayOnce(api, runId, REPLAY_EVENTS);
  const warm: { ms: number; firstMs: number }[] = [];
  const cpuBefore = processCpuMs(apiPid);
  for (let i = 0; i < REPLAYS; i++) warm.push(await replayOnce(api, runId, REPLAY_EVENTS));
  const cpuAfter = processCpuMs(apiPid);
  const warmMs = warm.map((w) => w.ms);
  const worst = Math.max(cold.ms, ...warmMs);
  log(`(a) replay of a ${REPLAY_EVENTS.toLocaleString('en-US')}-event run to one client, request → terminal event:`);
  log(`      cold (first request for the run): ${fmt(cold.ms)} ms (first event after ${fmt(cold.firstMs)} ms)`);
  log(`      warm × ${REPLAYS}: p50 ${fmt(percentile(warmMs, 50))} ms, min ${fmt(Math.min(...warmMs))} ms, max ${fmt(Math.max(...warmMs))} ms`);
  if (cpuBefore !== null && cpuAfter !== null) log(`      api CPU per warm replay: ${fmt((cpuAfter - cpuBefore) / REPLAYS, 0)} ms (the rest is Postgres, the client and waiting)`);
  const met = worst < TARGET_REPLAY_MS;
  log(`      target: every replay < ${TARGET_REPLAY_MS} ms (worst ${fmt(worst)} ms): ${met ? 'met' : 'NOT met'}`);
  return met;
}

async function benchFanOut(ds: DataSource, publisher: RunEventPublisher, api: string, apiPid: number | undefined): Promise<boolean> {
  const runId = await insertRun(ds, 'fanout');
  const worker = new Worker(__filename, { workerData: { role: 'clients', url: `${api}/v1/runs/${runId}/events`, clients: CLIENTS } satisfies ClientsData });
  const messages: { kind: string; [k: string]: unknown }[] = [];
  const waiters: (() => void)[] = [];
  worker.on('message', (m) => {
    messages.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  const workerFailed = new Promise<never>((_, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => code !== 0 && reject(new Error(`client worker exited with ${code}`)));
  });
  const next = async (kind: string) => {
    for (;;) {
      const m = messages.find((x) => x.kind === kind);
      if (m) return m;
      await Promise.race([new Promise<void>((r) => waiters.push(r)), workerFailed]);
    }
  };

  const connectStarted = now();
  const ready = await next('ready');
  const failed = ready.failedToConnect as string[];
  if (failed.length) throw new Error(`${failed.length} of ${CLIENTS} clients could not connect, e.g. ${failed[0]}`);
  log(`(b) ${ready.connected} clients connected and subscribed in ${fmt(now() - connectStarted, 0)} ms`);

  // Warm-up, then one phase per rate. Within a phase event k is due at start + k / rate,
  // whatever the previous commit cost, so a slow commit does not lower the rate.
  const phases = [{ rate: RATES[0], events: WARMUP, warmUp: true }, ...RATES.map((rate) => ({ rate, events: rate * SECONDS, warmUp: false }))];
  const total = phases.reduce((n, ph) => n + ph.events, 0);
  const committedAt = new Float64Array(total + 2);
  const stampedAt = new Float64Array(total + 2);
  const ranges: { rate: number; first: number; last: number; sendMs: number; apiCpuMs: number | null }[] = [];
  let k = 0;
  for (const phase of phases) {
    const start = now();
    const cpuBefore = processCpuMs(apiPid);
    let first = 0;
    let last = 0;
    for (let i = 0; i < phase.events; i++, k++) {
      const wait = start + (i * 1000) / phase.rate - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const qr = ds.createQueryRunner();
      await qr.connect();
      let written;
      let stamp: number;
      try {
        await qr.startTransaction();
        stamp = now();
        written = await appendRunEvents(qr.manager, runId, [
          { type: 'open_question_raised', payload: { role: 'critic', question: `fan-out ${k}`, t_commit_ms: stamp } as never },
        ]);
        await qr.commitTransaction();
      } finally {
        await qr.release();
      }
      const seq = written[0].sequence;
      committedAt[seq] = now();
      stampedAt[seq] = stamp;
      await publisher.publish(written);
      first ||= seq;
      last = seq;
    }
    // A pause between phases, so one phase's backlog does not spill into the next one's figures.
    const sendMs = now() - start;
    await new Promise((r) => setTimeout(r, 1000));
    const cpuAfter = processCpuMs(apiPid);
    const apiCpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    if (!phase.warmUp) ranges.push({ rate: phase.rate, first, last, sendMs, apiCpuMs });
  }
  const [terminal] = await ds.transaction((em) => appendRunEvents(em, runId, [{ type: 'run_completed', payload: { status: 'done' } }]));
  await publisher.publish([terminal]);

  const { result } = (await next('done')) as unknown as { result: ClientsResult };
  await worker.terminate();

  const expected = (total + 1) * CLIENTS;
  const complete = result.delivered === expected && result.misordered === 0;
  const p = (xs: number[], q: number) => fmt(percentile(xs, q), 1);
  log(`(b) live fan-out: ${CLIENTS} SSE subscribers of one run on one api process; events appended at a steady rate, each its own transaction, published after commit`);
  log(`      delivered ${result.delivered.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} frames; out of order or repeated: ${result.misordered}; streams ended by the server: ${result.ended}`);
  log(`      latency = client parsed the frame − COMMIT returned (in brackets: from the payload's t_commit_ms, stamped before COMMIT); ${WARMUP} warm-up events not counted`);
  let met = complete;
  for (const r of ranges) {
    const fromCommit: number[] = [];
    const fromStamp: number[] = [];
    for (let i = 0; i < result.delivered; i++) {
      const seq = result.seqs[i];
      if (seq < r.first || seq > r.last) continue;
      fromCommit.push(result.times[i] - committedAt[seq]);
      fromStamp.push(result.times[i] - stampedAt[seq]);
    }
    const p99 = percentile(fromCommit, 99);
    const ok = p99 < TARGET_P99_MS;
    met &&= ok;
    const sent = r.last - r.first + 1;
    const cpu = r.apiCpuMs === null ? 'n/a' : `${fmt((r.apiCpuMs * 1000) / (sent * CLIENTS), 1)} µs/frame, ${fmt((100 * r.apiCpuMs) / (r.sendMs + 1000), 0)}% of a core`;
    log(
      `      ${String(r.rate).padStart(3)} events/s (${((r.rate * CLIENTS) / 1000).toFixed(1)}k frames/s, ${sent} events in ${fmt(r.sendMs / 1000, 1)} s): ` +
        `p50 ${p(fromCommit, 50)} ms, p90 ${p(fromCommit, 90)} ms, p99 ${p(fromCommit, 99)} ms, max ${p(fromCommit, 100)} ms ` +
        `[p50 ${p(fromStamp, 50)}, p99 ${p(fromStamp, 99)}] — p99 < ${TARGET_P99_MS} ms ${ok ? 'met' : 'NOT met'}`,
    );
    log(`           api CPU: ${cpu}`);
  }
  log(`      target: p99 < ${TARGET_P99_MS} ms at every rate, every frame delivered once, in order: ${met ? 'met' : 'NOT met'}`);
  return met;
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const cleanUp = async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch((e: Error) => log(`cleanup: ${e.message}`));
  };
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  let ok = false;
  try {
    const db: TestDatabase = await createTestDatabase({ migrate: true });
    cleanups.push(() => db.drop());
    const prefix = randomQueuePrefix('rt_bench_sse');
    const redis = new IORedis(TEST_REDIS_URL);
    cleanups.push(async () => {
      await deleteRedisPrefix(redis, prefix);
      redis.disconnect();
    });
    const ds = createDataSource(db.url, { applicationName: 'roundtable-bench-sse' });
    await ds.initialize();
    cleanups.push(() => ds.destroy());

    const port = await freePort();
    const api: RunningService = await startService('api', {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      PORT: String(port),
      ...(API_NODE_OPTIONS ? { NODE_OPTIONS: API_NODE_OPTIONS } : {}),
    });
    cleanups.push(() => stopService(api));
    const base = `http://127.0.0.1:${port}`;

    log(`machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, node ${process.version}; api: one process (dist/apps/api), scratch database ${db.name}`);
    // The api, Postgres, Redis and the clients share these CPUs: a busy machine shows in every figure.
    log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const replayMet = await benchReplay(ds, base, api.process.pid);
    const fanOutMet = await benchFanOut(ds, new RunEventPublisher(redis, prefix), base, api.process.pid);
    ok = replayMet && fanOutMet;
    log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    log(ok ? 'all targets met' : 'some targets NOT met');
  } finally {
    await cleanUp();
  }
  process.exitCode = ok ? 0 : 1;
}

if (isMainThread) {
  main().catch((e: Error) => {
    process.stderr.write(`bench:sse failed: ${e.stack ?? e.message}\n`);
    process.exit(1);
  });
} else if ((workerData as ClientsData | undefined)?.role === 'clients') {
  runClients(workerData as ClientsData).catch((e: Error) => {
    process.stderr.write(`bench:sse clients failed: ${e.stack ?? e.message}\n`);
    process.exit(1);
  });
}
