/**
 * What both peers of the panel phase (langgraph-peer.ts, dbos-peer.ts) call: the panel demo
 * cassette's replies, and a fake zero-latency provider that parses one of them as a provider's
 * reply would be parsed — the same bytes our replay provider returns, so every side carries
 * replies of one size.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export const JUDGES = ['vc', 'engineer', 'pm', 'customer', 'competitor'] as const;
export type Judge = (typeof JUDGES)[number];

/** Agent calls one panel makes: 5 verdicts + 15 turns + 5 re-votes + 1 moderator. */
export const PEER_CALLS_PER_RUN = 26;

/** The demo cassette's replies as JSON text, per role, in the order the replay provider hands them out. */
export interface CannedReplies {
  verdict: Record<Judge, string>;
  turns: string[];
  revote: Record<Judge, string>;
  moderator: string;
}

export function cannedReplies(cassetteFile: string): CannedReplies {
  const { replies } = parseYaml(readFileSync(cassetteFile, 'utf8')) as { replies: { role: string; reply: unknown }[] };
  const byRole = new Map<string, string[]>();
  for (const r of replies) byRole.set(r.role, [...(byRole.get(r.role) ?? []), JSON.stringify(r.reply)]);
  const of = (role: string, i: number) => {
    const text = byRole.get(role)?.[i];
    if (text === undefined) throw new Error(`${cassetteFile}: no reply #${i + 1} for role ${role}`);
    return text;
  };
  const turns: string[] = [];
  for (let round = 0; round < 3; round++) for (const j of JUDGES) turns.push(of(j, 1 + round));
  return {
    verdict: Object.fromEntries(JUDGES.map((j) => [j, of(j, 0)])) as Record<Judge, string>,
    turns,
    revote: Object.fromEntries(JUDGES.map((j) => [j, of(j, 4)])) as Record<Judge, string>,
    moderator: of('moderator', 0),
  };
}

/** One agent call of a peer: zero latency, the reply parsed as a provider's reply would be. */
export const fakeCall = async (replyText: string): Promise<Record<string, unknown>> => JSON.parse(replyText) as Record<string, unknown>;
