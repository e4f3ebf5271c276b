import { z } from 'zod';
import { RUN_EVENT_PAYLOADS, RunEventEnvelope, type RunEventType } from '@roundtable/contracts';

/**
 * The events reply typed per event type, for the OpenAPI document: each type's frame is the
 * envelope with `type` fixed and `payload` the contracts' schema for it, so a client reads what
 * `criteria_locked` or `judge_verdict_completed` carries from the document instead of `object`.
 * Built from the catalogue, so a new event type is documented the moment it exists.
 */

/** `run_created` → `RunCreatedEvent`: the component that describes one event type's frame. */
export function eventComponentId(type: string): string {
  return `${type.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())}Event`;
}

const frameOf = <T extends RunEventType>(type: T) => RunEventEnvelope.extend({ type: z.literal(type), payload: RUN_EVENT_PAYLOADS[type] });

const TYPES = Object.keys(RUN_EVENT_PAYLOADS) as RunEventType[];

type Frame = ReturnType<typeof frameOf>;
const frames = TYPES.map(frameOf) as [Frame, ...Frame[]];

/** One frame schema per event type, keyed by its component id (the same instances the union holds, so the union refers to them). */
export const RUN_EVENT_FRAMES: Record<string, z.ZodType> = Object.fromEntries(TYPES.map((t, i) => [eventComponentId(t), frames[i]]));

/** Any one event: a union discriminated by `type` (a oneOf in the document). */
export const RunEventFrame = z.discriminatedUnion('type', frames);

/** OpenAPI's discriminator for RunEventFrame: which component each `type` value selects. */
export const RUN_EVENT_DISCRIMINATOR = {
  propertyName: 'type',
  mapping: Object.fromEntries(TYPES.map((t) => [t, `#/components/schemas/${eventComponentId(t)}`])),
};
