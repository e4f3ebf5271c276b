import type { ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import type { ReadDb } from './read-db';
import { RedisSubscribeError, RunEventHub } from './run-event-hub';
import { RunEventStream, RunEventStreamOptions } from './run-event-stream';
import { APPEAL_PENDING_SQL, endsStream, mayEndStream, RUN_ENDED_SQL } from './stream-end';

/** Sequences are Postgres integers. */
const MAX_SEQUENCE = 2 ** 31 - 1;

function resumeValue(raw: unknown, field: string): number | undefined {
  // An empty Last-Event-ID is what a client holds before its first id: no resume point.
  if (raw === undefined || raw === '') return undefined;
  const text = Array.isArray(raw) ? undefined : typeof raw === 'string' ? raw.trim() : undefined;
  const n = text !== undefined && /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n > MAX_SEQUENCE) {
    const message = `${field} must be an event sequence: a whole number from 0 (given once)`;
    throw ApiError.badRequest('invalid_resume_point', message, { issues: [{ path: field, message }] });
  }
  return n;
}

/**
 * Where a stream resumes: after the Last-Event-ID header if there is one, else after `?after=`,
 * else from the start. The header wins because a reconnecting EventSource sends it while
 * reusing the URL of its first request, whose `after` is older.
 */
export function resumePoint(lastEventId: unknown, query: Record<string, unknown> | undefined): number {
  return resumeValue(lastEventId, 'Last-Event-ID') ?? resumeValue(query?.after, 'after') ?? 0;
}

interface RunHead {
  event_seq: number;
  last_type: string | null;
  appeal_pending: boolean;
  run_ended: boolean;
}

/** `?through=end`: follow past stream-end events to the end of the log (see RunEventStream). */
export function throughLogOf(query: Record<string, unknown> | undefined): boolean {
  const raw = query?.through;
  if (raw === undefined) return false;
  if (raw === 'end') return true;
  const message = 'through must be "end" (follow past run_completed to the end of the log: a resume, an appeal), given once';
  throw ApiError.badRequest('invalid_query', message, { issues: [{ path: 'through', message }] });
}

/** GET /v1/runs/:id/events: checks the request, then hands the response to a RunEventStream. */
export class RunEventsService {
  constructor(
    private readonly db: ReadDb,
    private readonly hub: RunEventHub,
    private readonly opts: RunEventStreamOptions,
  ) {}

  /** Errors thrown from here (404, 400, 503) are answered as JSON: nothing has been written yet. */
  async open(runId: string, lastEventId: unknown, query: Record<string, unknown> | undefined, res: ServerResponse): Promise<void> {
    const after = resumePoint(lastEventId, query);
    const throughLog = throughLogOf(query);
    // The head from the primary, never the replica: a client resuming after an event it was sent live
    // (published after its commit on the primary) must not be told the log has no such event, nor a
    // run just submitted be a 404, nor a stream end early on a lagging copy of the run.
    const [head] = (await this.db.primary.query(
      `SELECT r.event_seq, e.type AS last_type, ${APPEAL_PENDING_SQL} AS appeal_pending, ${RUN_ENDED_SQL} AS run_ended
         FROM runs r LEFT JOIN run_events e ON e.run_id = r.id AND e.sequence = r.event_seq
        WHERE r.id = $1`,
      [runId],
    )) as RunHead[];
    if (!head) throw ApiError.notFound('run_not_found', `no run ${runId}`);
    const last = Number(head.event_seq);
    if (after > last) {
      // A sequence the log never had: resuming there would silently skip events.
      throw ApiError.badRequest('invalid_resume_point', `run ${runId} has no event ${after}; its last is ${last}`, {
        issues: [{ path: lastEventId !== undefined ? 'Last-Event-ID' : 'after', message: `beyond the last event (${last})` }],
      });
    }
    const atEnd = head.last_type !== null && (endsStream(head.last_type) || (mayEndStream(head.last_type) && head.run_ended));
    if (after === last && atEnd && !head.appeal_pending) {
      // Everything up to the terminal event was seen: 204 is the spec's "do not reconnect" to EventSource.
      res.statusCode = 204;
      res.end();
      return;
    }
    const stream = new RunEventStream(runId, after, res, this.db.primary, this.hub, this.opts, throughLog, this.db.lagging);
    try {
      await stream.subscribe();
    } catch (e) {
      if (e instanceof RedisSubscribeError) {
        throw new ApiError(503, { error: 'event_stream_unavailable', message: `cannot follow run ${runId} live: ${e.message}` });
      }
      throw e;
    }
    await stream.run();
  }
}
