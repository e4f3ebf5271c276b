import path from 'node:path';
import { TERMINAL_EVENT_TYPES } from '@roundtable/contracts';
import {
  freePort,
  Pipeline,
  projectConfigFrom,
  RunningService,
  startPipeline,
  startService,
  startTcpProxy,
  stopService,
  submitRun,
  TcpProxy,
  TEST_REDIS_URL,
  waitForTerminal,
} from '@roundtable/testing';
import { EventSourceFollower, FollowerNote, READY_STATE } from './support/event-source-follower';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
/** The reconnection delay the api announces; short, so the test does not wait EventSource's default 3 s. */
const RETRY_MS = 300;

/** The demo with every replayed reply held 150 ms, so the run lasts long enough to drop a connection in the middle. */
function slowDemo(): Record<string, unknown> {
  const cfg = projectConfigFrom(DEMO) as { providers: Record<string, Record<string, unknown>> };
  cfg.providers.replay.latency_ms = 150;
  return cfg;
}

const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
const gotTerminal = (notes: FollowerNote[]) => notes.some((n) => n.kind === 'event' && isTerminal(n.type));
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('the event stream with a real EventSource client, across real services', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({ env: { SSE_RETRY_MS: String(RETRY_MS) } });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  const logOf = (id: string) =>
    pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);

  it('survives a dropped connection mid-run: EventSource reconnects with Last-Event-ID and sees every sequence once, in order', async () => {
    const apiPort = Number(new URL(pipeline.api).port);
    let proxy: TcpProxy | undefined;
    let es: EventSourceFollower | undefined;
    try {
      proxy = await startTcpProxy(apiPort);
      const res = await submitRun(pipeline.api, slowDemo());
      expect(res.status).toBe(202);
      const id = res.body.id as string;
      es = new EventSourceFollower(`${proxy.url}/v1/runs/${id}/events`);

      // Drop the connection once the run is under way: the first agent call has come back.
      await es.waitFor('the first completed agent call', (notes) => notes.some((n) => n.kind === 'event' && n.type === 'agent_call_completed'));
      proxy.cut();

      await es.waitFor('the terminal event', gotTerminal, 120_000);
      // After the terminal event the server closes; EventSource reconnects once more with the
      // terminal id and is told 204 (spec: stop reconnecting).
      await es.waitFor('EventSource to give up after 204', (notes) => notes.some((n) => n.kind === 'error' && n.code === 204), 10_000);

      const run = await waitForTerminal(pipeline, id, 120_000);
      expect(run.status).toBe('done');
      const log = await logOf(id);
      const events = es.events();
      // Every sequence exactly once, in order, ending with the terminal event: nothing lost at the drop.
      expect(events.map((e) => e.sequence)).toEqual(range(log.length));
      expect(events.map((e) => e.type)).toEqual(log.map((e) => e.type));
      expect(events.map((e) => e.frameId)).toEqual(events.map((e) => String(e.sequence)));
      expect(events.map((e) => e.frameType)).toEqual(events.map((e) => e.type));
      expect(events.at(-1)?.type).toBe('run_completed');
      expect(events.every((e) => e.run_id === id)).toBe(true);

      // The drop really was mid-run, and the library's own reconnect resumed after the last id it had.
      // The worker reports in order, so the last event before its first error is the last one before the drop
      // (more may have arrived between seeing the agent call here and the cut).
      const firstError = es.notes.findIndex((n) => n.kind === 'error');
      const lastSeen = es.notes.slice(0, firstError).filter((n) => n.kind === 'event').length;
      expect(lastSeen).toBeGreaterThanOrEqual(5);
      expect(lastSeen).toBeLessThan(log.length - 1);
      const heads = proxy.requests.filter((r) => r.startsWith(`GET /v1/runs/${id}/events`));
      expect(heads).toHaveLength(3);
      expect(heads[0]).not.toMatch(/last-event-id/i);
      expect(heads[1]).toMatch(new RegExp(`^last-event-id: ${lastSeen}$`, 'im'));
      expect(heads[2]).toMatch(new RegExp(`^last-event-id: ${log.length}$`, 'im'));
      const errors = es.notes.filter((n) => n.kind === 'error');
      // One error per drop (the cut, then the server's close after the terminal event), then the 204.
      expect(errors.map((e) => (e.kind === 'error' ? e.code : null)).at(-1)).toBe(204);
      expect(es.notes.at(-1)?.readyState).toBe(READY_STATE.CLOSED);
      expect(es.notes.filter((n) => n.kind === 'open')).toHaveLength(2);
    } finally {
      await es?.close();
      await proxy?.close();
    }
  });

  it('serves a subscriber on a second api process: submitted on A, streamed from B through the terminal event', async () => {
    const port = await freePort();
    let apiB: RunningService | undefined;
    let es: EventSourceFollower | undefined;
    try {
      apiB = await startService('api', {
        DATABASE_URL: pipeline.db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: pipeline.prefix,
        PORT: String(port),
        SSE_RETRY_MS: String(RETRY_MS),
      });
      const b = `http://127.0.0.1:${port}`;
      const res = await submitRun(pipeline.api, slowDemo());
      expect(res.status).toBe(202);
      const id = res.body.id as string;
      es = new EventSourceFollower(`${b}/v1/runs/${id}/events`);

      await es.waitFor('the terminal event from api B', gotTerminal, 120_000);
      const log = await logOf(id);
      const events = es.events();
      expect(events.map((e) => e.sequence)).toEqual(range(log.length));
      expect(events.map((e) => e.type)).toEqual(log.map((e) => e.type));
      expect(events.at(-1)?.type).toBe('run_completed');
      // One connection was enough: B followed the run live from events written by another process.
      expect(es.notes.filter((n) => n.kind === 'open')).toHaveLength(1);
      // Live, not one replay at the end: the events arrived over the run's seconds, as written by the orchestrator.
      expect(events.at(-1)!.receivedAt - events[0].receivedAt).toBeGreaterThan(1000);
    } finally {
      await es?.close();
      if (apiB) await stopService(apiB);
    }
  });
});
