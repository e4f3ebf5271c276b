/**
 * The vote baseline's answer (issue 25): of N solo runs of one task, the answer most of them
 * gave, scored as the arm's one answer. Answers are compared as files, after the formatting a
 * model varies without meaning anything by it (line endings, trailing whitespace, trailing blank
 * lines) is normalised away.
 */

export interface VoteSample {
  runId: string;
  /** The sample's place among the arm's runs of the task (0 first): ties go to the lowest. */
  index: number;
  /** The files the run wrote, by path. */
  files: Record<string, string>;
}

export interface PluralityAnswer {
  /** The run whose files are scored: the lowest-index sample of the winning answer. */
  runId: string;
  /** Samples that gave this answer … */
  votes: number;
  /** … of all the samples. */
  of: number;
}

/** CRLF to LF, trailing whitespace off each line, trailing blank lines dropped. */
export function normaliseAnswerText(content: string): string {
  const lines = content.replace(/\r\n/g, '\n').split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/**
 * An answer's identity: its paths in order with their normalised contents. The text itself is the
 * key, not a hash of it, so two different answers can never collide.
 */
export function answerKey(files: Record<string, string>): string {
  const entries = Object.keys(files)
    .sort()
    .map((path) => [path, normaliseAnswerText(files[path])]);
  return JSON.stringify(entries);
}

interface Group {
  key: string;
  empty: boolean;
  first: VoteSample;
  votes: number;
}

/**
 * The plurality answer of the samples: the largest group of equal answers wins, a tie goes to the
 * group whose first sample has the lowest index. A sample with no files is an empty answer, a group
 * of its own (every empty sample in it); it wins only as the strict plurality, so a tie between
 * "nothing" and an answer goes to the answer. No samples: null (nothing to score).
 */
export function pluralityAnswer(samples: readonly VoteSample[]): PluralityAnswer | null {
  if (samples.length === 0) return null;
  const groups = new Map<string, Group>();
  for (const s of [...samples].sort((a, b) => a.index - b.index)) {
    const key = answerKey(s.files);
    const g = groups.get(key);
    if (g) g.votes += 1;
    else groups.set(key, { key, empty: Object.keys(s.files).length === 0, first: s, votes: 1 });
  }
  const [winner] = [...groups.values()].sort((a, b) => b.votes - a.votes || Number(a.empty) - Number(b.empty) || a.first.index - b.first.index);
  return { runId: winner.first.runId, votes: winner.votes, of: samples.length };
}
