import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

const CASSETTE = path.resolve(__dirname, '../../../examples/panel-demo/cassette.yaml');

/** What the panel demo's cassette has each judge say, for the page to be held against. */
export interface JudgeSays {
  judge: string;
  score: number;
  firstEvidence: string;
  revoteScore: number;
  revoteReason: string | null;
}

interface Reply {
  role: string;
  reply: { judge?: string; score?: number; evidence?: string[]; changed?: boolean; change_reason?: string | null; speaker?: string; message?: string };
}

const cassetteReplies = (): Reply[] => (parseYaml(readFileSync(CASSETTE, 'utf8')) as { replies: Reply[] }).replies;

/** The debate's messages D1 … D15 in the order they are spoken (the cassette lists them so: round by round, vc → competitor). */
export function panelDemoDebate(): string[] {
  return cassetteReplies()
    .filter((r) => r.reply.speaker !== undefined && r.reply.message !== undefined)
    .map((r) => r.reply.message!);
}

/** Per judge, in the cassette's order: the roast verdict (its first reply) and its re-vote (the reply that says `changed`). */
export function panelDemoJudges(): JudgeSays[] {
  const replies = cassetteReplies();
  const judges = [...new Set(replies.filter((r) => r.role !== 'moderator').map((r) => r.role))];
  return judges.map((judge) => {
    const own = replies.filter((r) => r.role === judge);
    const verdict = own[0].reply;
    const revote = own.find((r) => r.reply.changed !== undefined)?.reply;
    if (verdict.score === undefined || !verdict.evidence?.length || revote?.score === undefined) {
      throw new Error(`${CASSETTE}: no roast verdict with evidence, or no re-vote, for ${judge}`);
    }
    return { judge, score: verdict.score, firstEvidence: verdict.evidence[0], revoteScore: revote.score, revoteReason: revote.change_reason ?? null };
  });
}
