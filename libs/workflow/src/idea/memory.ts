import { JUDGES, type JudgeRole, type ModeratorSynthesis, type PanelMemory } from '@roundtable/contracts';
import { evidenceBlock } from '../evidence-block';

/** How many tokens of earlier panels a prompt holds at most (about four characters a token, as the ledger estimates). */
export const MEMORY_TOKENS = 600;

const tokensOf = (text: string): number => Math.ceil(text.length / 4);

/** One panel's memory, from its moderator's synthesis and the judges' final scores. */
export function memoryOfPanel(p: {
  runId: string;
  version: number | null;
  synthesis: ModeratorSynthesis;
  scores: Partial<Record<JudgeRole, number>>;
  changed: readonly string[];
}): PanelMemory {
  return {
    run_id: p.runId,
    version: p.version,
    recommendation: p.synthesis.overall_recommendation,
    confidence: p.synthesis.confidence,
    scores: Object.fromEntries(JUDGES.filter((j) => p.scores[j] !== undefined).map((j) => [j, p.scores[j]!])),
    top_risks: p.synthesis.top_risks.slice(0, 3),
    changed: [...p.changed],
  };
}

/** One memory as a judge reads it: a line of facts a model wrote none of but the risks. */
function memoryLine(m: PanelMemory): string {
  const scores = JUDGES.filter((j) => m.scores[j] !== undefined).map((j) => `${j} ${m.scores[j]}`).join(', ');
  const where = m.version === null ? 'an inline idea' : `version ${m.version}`;
  const changed = m.changed.length ? m.changed.join(', ') : m.version === null ? 'unknown' : 'nothing (or the first panel)';
  return [
    `Panel ${m.run_id} on ${where}: ${m.recommendation} (confidence ${m.confidence}).`,
    `Scores: ${scores || 'none'}.`,
    `Top risks: ${m.top_risks.length ? m.top_risks.join('; ') : 'none named'}.`,
    `Changed in the worksheet since the panel before: ${changed}.`,
  ].join('\n');
}

export interface MemoryText {
  /** The earlier panels' summaries, newest first, each in an evidence block; '' when there are none. */
  text: string;
  /** How many summaries the text holds, of how many there were. */
  held: number;
  total: number;
  tokens: number;
}

/**
 * The earlier panels a prompt is shown: newest first, as many whole summaries as fit in
 * `maxTokens`; the header says how many it holds of how many, so a judge knows the memory is
 * partial. Each summary enters through evidenceBlock(): its risks were written by a model.
 */
export function memoryText(memories: readonly PanelMemory[], maxTokens = MEMORY_TOKENS): MemoryText {
  if (!memories.length) return { text: '', held: 0, total: 0, tokens: 0 };
  const blocks: string[] = [];
  let tokens = 0;
  for (const [i, m] of memories.entries()) {
    const block = evidenceBlock(`MEM${i + 1}`, 'earlier_panel', memoryLine(m));
    if (tokens + tokensOf(block) > maxTokens) break;
    blocks.push(block);
    tokens += tokensOf(block);
  }
  const header = `Earlier panels on this idea (summaries only, newest first; ${blocks.length} of ${memories.length} held, about ${tokens} tokens). Say what moved since them:`;
  return { text: [header, ...blocks].join('\n'), held: blocks.length, total: memories.length, tokens };
}
