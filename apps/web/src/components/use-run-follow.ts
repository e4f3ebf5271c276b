import { emptyRunView, foldRunEvent, type RunView } from '@roundtable/run-view';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { appendEnvelope } from '../lib/run-events';
import { followRunEvents, type FollowOutcome, type StreamState } from '../lib/run-event-stream';
import { useApp } from './app-context';

export interface RunFollow {
  /** The run's live state: only what libs/run-view folds from the envelopes. */
  view: RunView;
  /** The log's envelopes as they arrived, each once, oldest first (the Events tab). */
  envelopes: readonly RunEventEnvelope[];
  stream: StreamState;
  /** Why the stream stopped for good (a 404, a 403), or null. */
  refused: string | null;
  /** How many times the stream dropped and was picked up again (the page says so). */
  reconnects: number;
  /** Follow again from the last sequence folded: after an act (resume, appeal) adds events to an ended log. */
  restart: () => void;
  /** How many follows have ended (a 204 included): a new one each time an ended run is looked at again. */
  endings: number;
}

/**
 * Follows GET /v1/runs/:id/events?through=end and folds every envelope into a RunView. A reload
 * or a second tab starts from the empty view and replays the log; a reconnect sends the last
 * sequence folded as Last-Event-ID; either way the reducer's sequence gate converges.
 */
export function useRunFollow(runId: string): RunFollow {
  const { api } = useApp();
  const [view, setView] = useState<RunView>(() => emptyRunView(runId));
  const viewRef = useRef(view);
  const [envelopes, setEnvelopes] = useState<readonly RunEventEnvelope[]>([]);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [refused, setRefused] = useState<string | null>(null);
  const [reconnects, setReconnects] = useState(0);
  const [generation, setGeneration] = useState(0);
  const [endings, setEndings] = useState(0);
  const streamRef = useRef<StreamState>('connecting');

  useEffect(() => {
    const ac = new AbortController();
    setRefused(null);
    followRunEvents({
      url: `/v1/runs/${encodeURIComponent(runId)}/events?through=end`,
      token: api.token,
      lastSequence: () => viewRef.current.lastSequence,
      onEnvelope: (e) => {
        setEnvelopes((list) => appendEnvelope(list, e));
        const next = foldRunEvent(viewRef.current, e);
        if (next !== viewRef.current) {
          viewRef.current = next;
          setView(next);
        }
      },
      onState: (s) => {
        // Looking again at an ended run (a 204 if nothing is new) keeps saying ended until events flow.
        if (s === 'connecting' && streamRef.current === 'ended') return;
        if (s === 'reconnecting') setReconnects((n) => n + 1);
        streamRef.current = s;
        setStream(s);
      },
      signal: ac.signal,
    }).then((outcome: FollowOutcome) => {
      if (outcome.kind === 'ended') setEndings((n) => n + 1);
      else if (outcome.kind === 'unauthorized') {
        // Any api call's 401 shows the token screen; ask one so the app's handler runs.
        api.me().catch(() => undefined);
      } else if (outcome.kind === 'refused') {
        streamRef.current = 'ended';
        setStream('ended');
        setRefused(`${outcome.message} (${outcome.status})`);
      }
    }, (err: unknown) => {
      // Not a network drop (those are retried inside): a bug or a browser without streams. Say it.
      streamRef.current = 'ended';
      setStream('ended');
      setRefused(`the stream could not be read: ${(err as Error)?.message ?? String(err)}`);
    });
    return () => ac.abort();
  }, [api, runId, generation]);

  const restart = useCallback(() => setGeneration((g) => g + 1), []);
  return { view, envelopes, stream, refused, reconnects, restart, endings };
}
