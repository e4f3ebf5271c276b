import { criteriaOf, type ExperimentDetail, type ExperimentInterpretation } from '@roundtable/contracts';

/** One criterion as the interpretation keeps it (code's holds, the interpreter's reading). */
type CriterionRow = ExperimentInterpretation['criteria'][number];

/**
 * An experiment's record as markdown (GET /v1/experiments/:id/report), from its reply alone: what
 * was preregistered and where it was pinned, each criterion as code read it beside the
 * interpreter's reading, the decision code computed (an interpreter's other view is shown as a
 * request that was not applied), the critic's review, the metrics and where the experiment came
 * from. What is not there yet says so, rather than being left out: a reader should see the gap.
 */

const NONE = '_none_';
const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();
const cell = (s: string): string => oneLine(s).replace(/\|/g, '\\|');
const bullets = (xs: readonly string[], none: string): string[] => (xs.length ? xs.map((x) => `- ${oneLine(x)}`) : [none]);

function planSection(d: ExperimentDetail): string[] {
  const p = d.preregistration;
  if (!p) return ['## Preregistration', d.status === 'rejected' ? 'None: the draft was rejected at its gate.' : 'None yet: a draft waits for its preregistration to be drafted and approved.'];
  return [
    '## Hypothesis',
    oneLine(p.hypothesis),
    '',
    '## Expected result',
    oneLine(p.expected_result),
    '',
    '## Method',
    oneLine(p.method.description),
    '',
    `Command: \`${p.method.command}\``,
    `Metrics: ${p.method.metrics.join(', ')}`,
    `Data: ${oneLine(p.data)}`,
    ...(p.assumptions.length ? ['', 'Assumptions:', ...bullets(p.assumptions, NONE)] : []),
  ];
}

function pinSection(d: ExperimentDetail): string[] {
  return [
    '## Pinned',
    `Repository: ${d.repo ?? 'none'}`,
    `Commit: ${d.commit ?? 'none'}`,
    `Preregistration hash: ${d.prereg_hash ?? 'none (not locked)'}`,
    `Locked: ${d.locked_at ?? 'not locked'}`,
  ];
}

function readingOf(o: CriterionRow | undefined): string {
  if (!o) return 'not read yet';
  if (!o.reading) return 'no reading given';
  const agrees = o.reading.holds === o.holds ? '' : ' (disagrees with code)';
  return `${o.reading.holds ? 'holds' : 'does not hold'}${agrees}: ${cell(o.reading.evidence)}`;
}

function criteriaSection(d: ExperimentDetail): string[] {
  if (!d.preregistration) return [];
  const outcomes = new Map((d.interpretation?.criteria ?? []).map((c) => [c.id, c]));
  const rows = criteriaOf(d.preregistration).map((c) => {
    const o = outcomes.get(c.id);
    const holds = o ? (o.holds ? 'yes' : 'no') : 'not evaluated';
    return `| ${c.id} | ${c.kind} | \`${cell(c.expr)}\` | ${holds} | ${readingOf(o)} |`;
  });
  return ['## Criteria', '| id | kind | expression | holds (code) | interpreter\'s reading and evidence |', '|---|---|---|---|---|', ...rows];
}

function decisionSection(d: ExperimentDetail): string[] {
  const i = d.interpretation;
  const out = ['## Decision', `**${d.decision ?? 'none yet'}**${d.decision ? ' (computed by code from the criteria)' : ''}`];
  if (i?.summary) out.push('', `Interpreter's summary: ${oneLine(i.summary)}`);
  if (i?.override_request) out.push('', `Override request (not applied): ${i.override_request.decision} — ${oneLine(i.override_request.reason)}`);
  if (i?.notes.length) out.push('', 'Notes:', ...bullets(i.notes, NONE));
  return out;
}

function reviewSection(d: ExperimentDetail): string[] {
  const i = d.interpretation;
  const r = i?.review;
  const review = r ? [`The critic ${r.agrees ? 'agrees' : 'disagrees'}: ${oneLine(r.summary)}`, ...(r.disagreements.length ? ['', ...bullets(r.disagreements, NONE)] : [])] : ['No review yet.'];
  return ['## Review', ...review, '', '## Open question', i?.open_question ? oneLine(i.open_question) : 'None.'];
}

function metricsSection(d: ExperimentDetail): string[] {
  const r = d.result;
  if (!r) return ['## Metrics', 'No result yet.'];
  const rows = Object.entries(r.metrics)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `| ${k} | ${v} |`);
  return [
    '## Metrics',
    '| metric | value |',
    '|---|---|',
    ...rows,
    '',
    `Exit code ${r.exit_code} after ${r.duration_s} s, run ${r.run_id} at commit ${r.commit}; hash ${r.prereg_hash === d.prereg_hash ? 'matches the lock' : `${r.prereg_hash} does NOT match the lock`}.`,
  ];
}

function sourceSection(d: ExperimentDetail): string[] {
  const s = d.source;
  const from = !s
    ? 'Preregistered directly.'
    : 'build_run_id' in s
      ? `The open question ${s.question_id} of build run ${s.build_run_id} (NEEDS_EXPERIMENT).`
      : `Idea ${s.idea_id}'s recommended experiment${s.panel_run_id ? ` (panel run ${s.panel_run_id})` : ''}.`;
  return ['## Source', from, ...(d.hypothesis_id ? [`Hypothesis: ${d.hypothesis_id}`] : [])];
}

export function renderExperimentReport(d: ExperimentDetail): string {
  const sections = [
    [`# Experiment ${d.id}: ${d.title ?? 'untitled draft'}`, `Project ${d.project} · status ${d.status} · created ${d.created_at}${d.created_by ? ` by ${d.created_by}` : ''} · run ${d.run_id ?? 'none'}`],
    planSection(d),
    pinSection(d),
    criteriaSection(d),
    decisionSection(d),
    reviewSection(d),
    metricsSection(d),
    sourceSection(d),
  ];
  return `${sections.filter((s) => s.length).map((s) => s.join('\n')).join('\n\n')}\n`;
}
