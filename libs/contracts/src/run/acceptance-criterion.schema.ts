import { z } from 'zod';

/** One acceptance criterion as locked when a critique accepts (AC1, AC2 …): the run row's `criteria` and criteria_locked's payload. */
export const AcceptanceCriterion = z.object({ id: z.string().describe('AC1, AC2 …'), text: z.string() });
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterion>;
