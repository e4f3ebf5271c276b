import type { LiveOnlyEventType } from '@roundtable/contracts';

/**
 * The contracts' LIVE_ONLY_EVENT_TYPES, restated for the zod-free clients (the workbench's
 * bundle, the CLI's start); live-only-events.spec.ts holds them equal. A live-only envelope
 * (a debate turn's tokens) is never in the run's log: its sequence is the stored event's it
 * follows, not one of its own.
 */
export const LIVE_ONLY_TYPES: readonly LiveOnlyEventType[] = ['debate_token_delta'];

// Stryker disable next-line ConditionalExpression: the typeof guard only narrows the type, includes() is false for null and undefined too (`false` is killed)
export const isLiveOnly = (type: string | null | undefined): boolean => typeof type === 'string' && (LIVE_ONLY_TYPES as readonly string[]).includes(type);
