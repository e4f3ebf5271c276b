import type { LiveRunEvent, NewRunEvent } from '@roundtable/contracts';
import { appendRunEvents, runEventChannel, RunEventPublisher } from '@roundtable/events';
import { createRedisConnection, type RedisClient } from '@roundtable/queues';
import { openSse, SseConnection, SseFrame, sseEvents } from '@roundtable/testing';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * Live-only events (a debate turn's tokens) on the event stream: published on the run's channel
 * without a sequence, sent while the stream is live as the stored event they follow (envelope
 * sequence and frame id both the last stored sequence), never in the log, so a replay has none.
 */
let h: ApiHarness;
let redis: RedisClient;
let publisher: RunEventPublisher;

beforeAll(async () => {
  h = await startApi();
  redis = createRedisConnection(h.env.REDIS_URL);
  publisher = new RunEventPublisher(redis, h.env.QUEUE_PREFIX);
});
afterAll(async () => {
  redis?.disconnect();
  await h?.close();
});

async function newRun(): Promise<string> {
  const res = await fetch(`${h.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function append(runId: string, events: NewRunEvent[]): Promise<void> {
  await publisher.publish(await h.ds.transaction((em) => appendRunEvents(em, runId, events)));
}

const delta = (runId: string, text: string): LiveRunEvent => ({ type: 'debate_token_delta', run_id: runId, payload: { speaker: 'vc', round: 1, delta: text }, created_at: new Date().toISOString() });
const isDelta = (f: SseFrame) => f.event === 'debate_token_delta';

/** Publishes `text` until the stream has sent `count` deltas (the first may land before the stream is live, and be dropped). */
async function deltaArrives(conn: SseConnection, runId: string, text: string, count: number): Promise<void> {
  for (let i = 0; i < 100 && conn.frames.filter(isDelta).length < count; i++) {
    await publisher.publishLiveOnly(delta(runId, text));
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /v1/runs/:id/events: live-only events', () => {
  it('sends a delta as the stored event it follows, drops a malformed one, and never stores one', async () => {
    const runId = await newRun();
    const conn = await openSse(`${h.base}/v1/runs/${runId}/events`);
    await conn.waitFor((f) => f.id === '1');
    await deltaArrives(conn, runId, 'The moat', 1);

    await append(runId, [{ type: 'agent_call_queued', payload: { call_id: 'c1', stage: 'DEBATE', role: 'vc', provider: 'p', model: 'm', attempt: 1, label: 'D1' } }]);
    await conn.waitFor((f) => f.id === '2' && !isDelta(f));
    // Not a delta (no speaker): dropped without a word, the stream goes on.
    await redis.publish(runEventChannel(h.env.QUEUE_PREFIX, runId), JSON.stringify({ type: 'debate_token_delta', run_id: runId, payload: { delta: 'x' }, created_at: 'now' }));
    await deltaArrives(conn, runId, ' is thin', 2);
    await append(runId, [{ type: 'run_completed', payload: { status: 'done', verdict: 'GO', confidence: 0.7 } }]);
    await conn.ended;

    const events = sseEvents(conn.frames);
    const deltas = events.filter((e) => e.type === 'debate_token_delta');
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    // Each under the id of the stored event sent before it, with that as its envelope's sequence.
    let last = 0;
    for (const e of events) {
      if (e.type !== 'debate_token_delta') last = e.sequence;
      else expect({ frameId: e.frameId, sequence: e.sequence }).toEqual({ frameId: String(last), sequence: last });
    }
    expect(deltas[0]).toMatchObject({ run_id: runId, payload: { speaker: 'vc', round: 1, delta: 'The moat' } });
    expect(deltas.some((d) => (d.payload as { delta: string }).delta === 'x')).toBe(false);
    expect(events.filter((e) => e.type !== 'debate_token_delta').map((e) => e.sequence)).toEqual([1, 2, 3]);

    // The log has none: a follower that comes later replays whole events only.
    const replay = await openSse(`${h.base}/v1/runs/${runId}/events`);
    await replay.ended;
    expect(sseEvents(replay.frames).map((e) => e.type)).toEqual(['run_created', 'agent_call_queued', 'run_completed']);
    const rows = await h.ds.query(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1 AND type = 'debate_token_delta'`, [runId]);
    expect(rows[0].n).toBe(0);
  });
});
