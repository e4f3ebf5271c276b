import { z } from 'zod';
import { RUN_EVENT_PAYLOADS, type RunEventType } from './run-event.schema';

/**
 * Event types that are live only: published on the run's Redis channel while something
 * happens (a debate turn's tokens as the model writes them) and never stored in the run's log,
 * so they have no sequence of their own. The stored event that follows them is the truth (the
 * whole turn, debate_message_published); a follower that joins late sees only that.
 */
export const LIVE_ONLY_EVENT_TYPES = ['debate_token_delta'] as const satisfies readonly RunEventType[];
export type LiveOnlyEventType = (typeof LIVE_ONLY_EVENT_TYPES)[number];

/**
 * A live-only event as it goes over the run's channel: an envelope without a sequence. The
 * api's event stream gives it one on the wire — the sequence of the last stored event that
 * stream sent, which the live event follows — so a client's envelope is always whole; a
 * client's reducer folds it without advancing its sequence gate (libs/run-view).
 */
export const LiveRunEvent = z.object({
  type: z.literal('debate_token_delta'),
  run_id: z.string(),
  payload: RUN_EVENT_PAYLOADS.debate_token_delta,
  created_at: z.string(),
});
export type LiveRunEvent = z.infer<typeof LiveRunEvent>;

export const isLiveOnlyEventType = (type: string): type is LiveOnlyEventType => (LIVE_ONLY_EVENT_TYPES as readonly string[]).includes(type);
