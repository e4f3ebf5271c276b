import { z } from 'zod';

/** What the panel judges: written by the user, so it enters a prompt as plain text. */
export const Idea = z
  .object({
    title: z.string().min(1, 'idea.title names the idea'),
    description: z.string().min(1, 'idea.description says what it is and how it works'),
    target_user: z.string().min(1, 'idea.target_user says who it is for'),
    evidence: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type Idea = z.infer<typeof Idea>;
export type IdeaInput = z.input<typeof Idea>;
