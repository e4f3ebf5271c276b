import { z } from 'zod';
import { DebateTurn, Idea, JUDGES, JudgeRole, JudgeVerdict, ModeratorSynthesis, Revote } from '@roundtable/contracts';

/**
 * One golden idea (test/fixtures/panel-golden/*.yaml, seed 003 "Twelve golden ideas"): the idea,
 * the panel config, what the panel must come to, an optional appeal, and every reply the replay
 * provider hands out in order per role. Tier 0 and tier 1 (libs/workflow specs) drive it through
 * decidePanel; tier 2 (`roundtable eval panel`) reads its transcript here for a grader model.
 */
export const GoldenReply = z
  .object({ role: z.enum([...JUDGES, 'moderator']), reply: z.record(z.string(), z.unknown()), expects: z.array(z.string()).optional(), forbids: z.array(z.string()).optional() })
  .strict();
export type GoldenReply = z.infer<typeof GoldenReply>;

export const GoldenIdea = z
  .object({
    idea: Idea,
    config: z.object({ max_debate_rounds: z.number().int().min(0), revote: z.boolean() }).strict(),
    expect: z
      .object({
        status: z.enum(['done', 'failed']),
        recommendation: z.enum(['GO', 'ITERATE', 'NO-GO']).optional(),
        quality: z.enum(['ok', 'weak', 'uniform', 'collapsed']),
        retries: z.number().int().min(0),
        debate_messages: z.number().int().min(0),
        herding: z.boolean().optional(),
        capped: z.array(JudgeRole).optional(),
        low_confidence: z.boolean().optional(),
        collapsed_pair: z.tuple([JudgeRole, JudgeRole]).optional(),
      })
      .strict(),
    appeal: z.object({ evidence: z.array(z.string()).min(1), judges: z.array(JudgeRole).min(1), moves: z.array(JudgeRole) }).strict().optional(),
    replies: z.array(GoldenReply).min(1),
  })
  .strict();
export type GoldenIdea = z.infer<typeof GoldenIdea>;

/** What a grader reads of one golden panel: the replies that ended up counting, in panel order. */
export interface GoldenTranscript {
  title: string;
  idea: GoldenIdea['idea'];
  /** The verdict each judge's lens stands on (after a retry, the retry's). */
  verdicts: JudgeVerdict[];
  turns: DebateTurn[];
  /** Each judge's re-vote with the score it moved from; empty when the re-vote is off. */
  revotes: (Revote & { previous: number })[];
  moderator: ModeratorSynthesis | null;
  /** The appeal's evidence and each appealed judge's re-score against its score before. */
  appeal: { evidence: string[]; rescored: (Revote & { previous: number })[] } | null;
}

/**
 * The transcript from the cassette alone, without running the panel: each role's replies sorted
 * by their schema (a verdict, a debate turn, a re-vote), turns in speaker order per round. A
 * collapsed panel (status failed) has verdicts and nothing after them.
 */
export function goldenTranscript(g: GoldenIdea): GoldenTranscript {
  const ofRole = (role: string) => g.replies.filter((r) => r.role === role).map((r) => r.reply);
  const verdicts: JudgeVerdict[] = [];
  const turns: DebateTurn[] = [];
  const revotes: GoldenTranscript['revotes'] = [];
  const rescored: GoldenTranscript['revotes'] = [];
  for (const judge of JUDGES) {
    const replies = ofRole(judge);
    const own = replies.flatMap((r) => (JudgeVerdict.safeParse(r).success ? [JudgeVerdict.parse(r)] : []));
    if (own.length === 0) continue;
    const verdict = own[own.length - 1];
    verdicts.push(verdict);
    if (g.expect.status === 'failed') continue;
    turns.push(...replies.flatMap((r) => (DebateTurn.safeParse(r).success && 'speaker' in r ? [DebateTurn.parse(r)] : [])));
    const scores = replies.flatMap((r) => ('changed' in r && Revote.safeParse(r).success ? [Revote.parse(r)] : []));
    let previous = verdict.score;
    scores.forEach((s, i) => {
      const entry = { ...s, previous };
      if (g.config.revote && i === 0) revotes.push(entry);
      else rescored.push(entry);
      previous = s.score;
    });
  }
  turns.sort((a, b) => a.round - b.round || JUDGES.indexOf(a.speaker) - JUDGES.indexOf(b.speaker));
  const mod = g.expect.status === 'failed' ? undefined : ofRole('moderator').find((r) => ModeratorSynthesis.safeParse(r).success);
  return {
    title: g.idea.title,
    idea: g.idea,
    verdicts,
    turns,
    revotes,
    moderator: mod ? ModeratorSynthesis.parse(mod) : null,
    appeal: g.appeal && rescored.length ? { evidence: g.appeal.evidence, rescored } : null,
  };
}
