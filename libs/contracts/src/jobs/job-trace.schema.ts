import { z } from 'zod';

/**
 * The W3C trace context a job carries (optional on every job): set by the typed producer, or the
 * outbox when the row is written, from the span that enqueued it; restored by JobRoutes around
 * its handler, so one run is one trace across every service. No handler reads it.
 */
export const JobTrace = z.object({
  traceparent: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'a W3C traceparent (version-traceid-spanid-flags, lowercase hex)'),
  tracestate: z.string().max(512).optional(),
});
export type JobTrace = z.infer<typeof JobTrace>;
