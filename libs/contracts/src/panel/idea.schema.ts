import { z } from 'zod';
import { PanelMemory } from './panel-memory.schema';

/** What the panel judges: written by the user, so it enters a prompt as plain text. */
export const Idea = z
  .object({
    title: z.string().min(1, 'idea.title names the idea'),
    description: z.string().min(1, 'idea.description says what it is and how it works'),
    target_user: z.string().min(1, 'idea.target_user says who it is for'),
    evidence: z.array(z.string().min(1)).default([]),
    /**
     * Summaries of earlier panels on the same idea, newest first (the api fills them in for a panel on
     * an idea's worksheet; memory.ts bounds how many reach a prompt). Summaries only: never a transcript.
     */
    earlier_panels: z.array(PanelMemory).max(50).optional(),
  })
  .strict();
export type Idea = z.infer<typeof Idea>;
export type IdeaInput = z.input<typeof Idea>;
