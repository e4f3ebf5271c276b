import { z } from 'zod';

/**
 * What a finished agent call recorded on its `agent_calls` row, keyed by column name. The
 * provider-worker writes it to the row and, at the same time, sends it along with agent.done,
 * so the orchestrator's step does not wait for that write: the step writes the same outcome
 * to the row itself when the row is still open (`queued` / `running`), and otherwise reads
 * what the row holds. The row stays the truth; this is a copy for the one step that needs it.
 * Every outcome column is present (null when the call has no value for it), since an open
 * row holds none of them.
 */
export const CallOutcome = z
  .object({
    status: z.enum(['completed', 'failed']),
    valid: z.boolean().nullable(),
    /** The reply as parsed JSON (an object when it validated), or null. Not walked here: the row's own column takes it as it is. */
    parsed: z.unknown(),
    response_text: z.string().nullable(),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    input_tokens: z.number().int().nullable(),
    output_tokens: z.number().int().nullable(),
    cached_input_tokens: z.number().int().nullable(),
    cost_usd: z.number().nullable(),
    cost_source: z.string().nullable(),
    latency_ms: z.number().int().nullable(),
    request_id: z.string().nullable(),
    billing: z.string().nullable(),
    argv: z.array(z.string()).nullable(),
    /**
     * The reply held NUL or lone surrogates, stored as `\uXXXX` text (Postgres text and jsonb
     * hold neither). Optional for writers that have no reply: absent is the column's null.
     */
    response_escaped: z.boolean().nullable().optional(),
    /**
     * A failed try: is it worth asking again (network, 5xx, 429, timeout, interrupted)? The
     * provider-worker's verdict; the orchestrator's engine decides the retry. Optional: absent
     * is the column's null (the try did not fail).
     */
    retryable: z.boolean().nullable().optional(),
    /** The provider's retry-after on a failed try (a 429's), in ms; absent or null: no hint. */
    retry_after_ms: z.number().int().nonnegative().nullable().optional(),
    /** ISO 8601, the provider-worker's clock when the reply was in. */
    finished_at: z.iso.datetime({ offset: true }),
  })
  .strict();
export type CallOutcome = z.infer<typeof CallOutcome>;

/** The outcome columns, in one order, for the SQL that writes them. */
export const CALL_OUTCOME_COLUMNS = Object.keys(CallOutcome.shape) as (keyof CallOutcome)[];
