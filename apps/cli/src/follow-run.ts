import type { RunEventEnvelope, RunEventType } from '@roundtable/contracts';
import { isLiveOnly, mayTrailStreamEnd, STREAM_END_TYPES } from '@roundtable/run-view';
import { ApiClient, ApiHttpError, ApiUnreachableError, issuesOf, seg } from './api-client';
import { formatEventLine } from './event-line';
import { LiveOutput } from './live-output';
import { pollRunEvents, RunDetail } from './poll-events';
import { RunCaps, RunRenderer, type RunUsageView } from './run-renderer';
import { readEventStream, SseConnectError, SseHttpError } from './sse-client';
import { CliIo, isTty, styleFor } from './terminal';

/** pretty: `run --follow`'s rendering; lines: `events`, one line per event; json: the envelopes as JSON lines. */
export type FollowMode = 'pretty' | 'lines' | 'json';

export interface FollowOptions {
  client: ApiClient;
  runId: string;
  io: CliIo;
  mode: FollowMode;
  /** Start after this sequence (0: from the first event). */
  after?: number;
  /** For the header line; known to `run`, which read the project file. */
  autonomy?: number | null;
  signal?: AbortSignal;
  pollIntervalMs?: number;
  /** Reconnect pacing of the event stream (tests shorten it). */
  retryMs?: number;
  idleTimeoutMs?: number;
  /** The renderer of an earlier part of the same log (a follow through a resume): its view goes on. */
  renderer?: RunRenderer;
  /**
   * pretty: render a terminal event without printing its closing lines, and return it as `held`: whether
   * they quote the events' tally or the API's usage is known only once it is known whether the log goes on.
   */
  holdClosing?: boolean;
  /** Lines to print before the first event this follow receives (a held closing line, now that more follows). */
  beforeFirst?: () => string[];
}

export interface FollowResult {
  /** The run's final status; null when following stopped before the run ended (Ctrl-C). */
  status: string | null;
  transport: 'sse' | 'polling';
  /** The sequence of the last event delivered (the `after` given when none was). */
  lastSequence: number;
  renderer: RunRenderer;
  /** The terminal event whose closing lines were held (`holdClosing`), or null. */
  held: RunEventEnvelope | null;
}

/**
 * The contracts' TERMINAL_EVENT_TYPES, restated so that starting the CLI does not load zod and
 * every schema (~0.4 s); the type ties each name to the catalogue and a spec checks the set.
 */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set<RunEventType>(['run_completed', 'run_failed', 'run_cancelled']);
/** Where the API ends a stream: libs/run-view's list, which the web workbench follows too. */
const STREAM_END: ReadonlySet<string> = new Set(STREAM_END_TYPES);
const TERMINAL = TERMINAL_EVENTS;

/** A refused appeal's trailing warnings: the API closes after them when they end the log (run-view's rule). */
const mayEndAtClose = (m: { event: string; data: string }): boolean => mayTrailStreamEnd(m.event) || mayTrailStreamEnd(typeOfData(m.data));

let activeFollows = 0;
/** Whether a follow is running: Ctrl-C then stops following instead of killing the process mid-line. */
export const isFollowing = (): boolean => activeFollows > 0;

function statusOfTerminal(ev: RunEventEnvelope): string | null {
  if (ev.type === 'run_completed') return String((ev.payload as { status?: unknown }).status ?? 'done');
  if (ev.type === 'run_failed') return 'failed';
  if (ev.type === 'run_cancelled') return 'cancelled';
  return null;
}

function typeOfData(data: string): string | null {
  try {
    return (JSON.parse(data) as { type?: string }).type ?? null;
  } catch {
    return null;
  }
}

/** An SSE reply that was not a stream, as the same error any other request would raise. */
function httpErrorOf(err: SseHttpError, route: string): ApiHttpError {
  let body: { error?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(err.body);
  } catch {
    body = undefined;
  }
  return new ApiHttpError(
    'GET',
    route,
    err.status,
    typeof body?.error === 'string' ? body.error : `http_${err.status}`,
    typeof body?.message === 'string' ? body.message : err.body.slice(0, 500),
    issuesOf(body),
    body ?? err.body,
  );
}

/**
 * Follows a run until its terminal event, over SSE when the API has it and by polling when
 * /events answers 404 (an older API). Every event goes through one handler, so both
 * transports print the same lines.
 */
export async function followRun(opts: FollowOptions): Promise<FollowResult> {
  activeFollows++;
  try {
    return await follow(opts);
  } finally {
    activeFollows--;
  }
}

async function follow(opts: FollowOptions): Promise<FollowResult> {
  const { client, runId, io, mode } = opts;
  const style = styleFor(io.stdout, io.env);
  const tty = isTty(io.stdout);
  // Also the check that the run exists, before a stream that might hide a 404 behind a fallback.
  const detail = await client.getJson<RunDetail>(`/v1/runs/${seg(runId)}`);
  const renderer = opts.renderer ?? new RunRenderer(style, { caps: detail.caps as RunCaps, autonomy: opts.autonomy });
  const live = new LiveOutput(io.stdout, tty);
  let status: string | null = null;
  let lastSequence = opts.after ?? 0;
  let held: RunEventEnvelope | null = null;
  let beforeFirst = opts.beforeFirst;

  const onEvent = async (ev: RunEventEnvelope) => {
    if (beforeFirst) {
      live.lines(beforeFirst());
      beforeFirst = undefined;
    }
    lastSequence = Math.max(lastSequence, ev.sequence);
    const terminal = TERMINAL.has(ev.type);
    if (terminal) status = statusOfTerminal(ev);
    if (mode === 'json') {
      io.stdout.write(`${JSON.stringify(ev)}\n`);
      return;
    }
    if (mode === 'lines') {
      // A line per token would bury the log; the turn's call line and gist follow it whole.
      if (isLiveOnly(ev.type)) return;
      io.stdout.write(`${formatEventLine(ev, style)}\n`);
      return;
    }
    if (terminal && opts.holdClosing) {
      // Folded now; its closing lines wait until it is known whether the log goes on (followToExit).
      renderer.render(ev);
      held = ev;
      return;
    }
    if (terminal) renderer.finalUsage = await apiUsage(client, runId);
    const lines = renderer.render(ev);
    live.lines(lines);
    if (terminal) return;
    if (tty) live.progress(renderer.progress({ inFlight: true }));
    else if (ev.type === 'stage_changed' && lines.length) live.progress(renderer.progress());
  };

  const route = `/v1/runs/${seg(runId)}/events`;
  let transport: FollowResult['transport'] = 'sse';
  try {
    await readEventStream({
      url: client.url(route),
      headers: client.authHeaders(),
      lastEventId: opts.after ? String(opts.after) : null,
      signal: opts.signal,
      retryMs: opts.retryMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      isTerminal: (m) => STREAM_END.has(m.event) || STREAM_END.has(typeOfData(m.data) ?? ''),
      mayEndAtClose,
      // A debate turn's tokens go out under the id of the stored event they follow (never stored themselves).
      followsLastId: (m) => isLiveOnly(m.event),
      onReconnect: ({ attempt, reason }) => {
        live.finish();
        io.stderr.write(`event stream dropped (${reason}); reconnecting (attempt ${attempt})\n`);
      },
      onMessage: async (m) => {
        let ev: RunEventEnvelope;
        try {
          ev = JSON.parse(m.data) as RunEventEnvelope;
        } catch {
          io.stderr.write(`skipped an event whose data is not JSON (id ${m.id ?? '?'})\n`);
          return;
        }
        await onEvent(ev);
      },
    });
  } catch (err) {
    if (err instanceof SseConnectError) throw new ApiUnreachableError(client.api, err.reason);
    if (!(err instanceof SseHttpError)) throw err;
    const httpErr = httpErrorOf(err, route);
    // The run exists (checked above), so a 404 here means this API has no /events route.
    if (err.status !== 404 || httpErr.code === 'run_not_found') throw httpErr;
    transport = 'polling';
    io.stderr.write(`this API has no event stream (GET ${route} answered 404); following by polling every ${opts.pollIntervalMs ?? 500} ms\n`);
    await pollRunEvents(client, runId, onEvent, { intervalMs: opts.pollIntervalMs, signal: opts.signal });
  } finally {
    live.finish();
  }
  return { status, transport, lastSequence, renderer, held };
}

/**
 * The API's own usage figures for a closing line at the end of the log: they cover every call, even ones
 * recorded before --after or whose reply the run no longer awaited; null (the events' tally) when unreachable.
 */
export async function apiUsage(client: ApiClient, runId: string): Promise<RunUsageView | null> {
  return client.getJson<RunDetail>(`/v1/runs/${seg(runId)}`).then(
    (r) => r.usage,
    () => null,
  );
}

/**
 * The sequence the run's log ends at now, read through every terminal event (a resumed run has one per halt):
 * where `resume --follow` starts, so it shows what the resume adds and not the run's history again.
 */
export async function logEndOf(client: ApiClient, runId: string, signal?: AbortSignal): Promise<number> {
  let after = 0;
  for (;;) {
    let last = after;
    const end = await readEventStream({
      url: client.url(`/v1/runs/${seg(runId)}/events`),
      headers: client.authHeaders(),
      lastEventId: after ? String(after) : null,
      signal,
      isTerminal: (m) => STREAM_END.has(m.event) || STREAM_END.has(typeOfData(m.data) ?? ''),
      mayEndAtClose,
      onMessage: (m) => {
        if (m.id !== null && /^\d+$/.test(m.id)) last = Math.max(last, Number(m.id));
      },
    });
    if (end.end !== 'terminal' || last === after) return last;
    after = last;
  }
}
