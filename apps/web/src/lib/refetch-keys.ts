import { hasEnded, type RunView } from '@roundtable/run-view';

/**
 * When the run page refetches the documents it reads by id. Each key is a string computed from the
 * folded view alone: the page refetches when a key changes, so a document is asked for when an event
 * says it changed, never on a timer, and a replay that folds nothing new asks for nothing.
 */

/** GET /v1/runs/:id/records: every *_recorded event, locked criteria, finished tests, and the panel's verdicts, turns, re-votes, close and appeals. */
export function recordsKey(v: RunView): string | null {
  if (v.lastSequence === 0) return null;
  const b = v.build;
  const p = v.panel;
  return [
    b.proposals.length,
    b.critiques.length,
    b.criteria ? 1 : 0,
    b.implementations.length,
    b.tests.filter((t) => t.result).length,
    b.reviews.length,
    b.synthesis ? 1 : 0,
    p ? p.judges.filter((j) => j.verdict).length : '-',
    p?.roast ? 1 : 0,
    p ? p.debate.filter((t) => !t.streaming).length : '-',
    p ? p.judges.filter((j) => j.revote).length : '-',
    p?.moderator ? 1 : 0,
    p?.appeals.map((a) => (a.after ? 2 : 1)).join('') ?? '-',
    // An experiment's result, reading and decision are written at its method's end and its stages.
    v.experiment ? `${v.experiment.method?.exitCode ?? v.experiment.method?.error ?? (v.experiment.method ? 'm' : '-')}|${v.experiment.decision?.decision ?? '-'}|${v.stage}` : '-',
    v.status,
  ].join('|');
}

/** GET /v1/runs/:id (usage against caps): each call that ends, each status change, resume or appeal. */
export const detailKey = (v: RunView): string => [v.status, v.usage.calls, v.resumes.length, v.panel?.appeals.length ?? 0, v.lastSequence > 0].join('|');

/** The diff and the report: once the run has ended (again, after a resume or an appeal); null while it runs. */
export const endKey = (v: RunView): string | null => (hasEnded(v) ? `${v.status}|${v.lastSequence}` : null);

/**
 * The run branch's diff: at each end of a run that recorded an implementation (the engineer wrote
 * something, so a branch exists); null while it runs, and for a run that ended before any
 * implementation, where GET /v1/runs/:id/diff could only answer 404.
 */
export const diffKey = (v: RunView): string | null => (v.build.implementations.length > 0 ? endKey(v) : null);
