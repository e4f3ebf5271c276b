import { Worksheet } from '@roundtable/contracts';
import { isPlaceholder, READINESS_LIMITS, readinessIssues, readinessOf } from './readiness';

const READY = Worksheet.parse({
  title: 'Swapboard',
  problem: 'Nurses arrange shift swaps in WhatsApp and wait two days for a paper approval.',
  target_user: 'ward nurses and ward managers in NHS hospital trusts',
  solution: 'A phone app where nurses post and claim shifts and the manager approves with one tap.',
  evidence: ['E1'],
  assumptions: ['managers will approve in the app'],
  open_risks: ['the roster vendor may not open its API'],
});
const failing = (w: Worksheet) => readinessOf(w).checks.filter((c) => !c.ok).map((c) => c.check);

describe('readiness of a worksheet version', () => {
  it('a complete worksheet is ready, and every check is listed as passed', () => {
    const r = readinessOf(READY);
    expect(r.ready).toBe(true);
    expect(r.checks.map((c) => c.check)).toEqual(['title_filled', 'problem_filled', 'target_user_filled', 'solution_filled', 'evidence_cited', 'assumptions_listed', 'open_risks_filled', 'size_limits']);
    expect(r.checks.every((c) => c.ok)).toBe(true);
    expect(readinessIssues(r)).toEqual([]);
  });

  it.each(['', '   ', 'TBD', 'tbd.', 'TODO', 'TODO: write the problem', 'Lorem ipsum dolor sit amet', '...', '…', 'n/a', 'N/A', '?', '???', 'xxx', '[problem]', '<solution>', 'placeholder', 'Coming soon', 'to be decided', '-', 'FIXME'])(
    'a placeholder (%j) is not content',
    (v) => {
      expect(isPlaceholder(v)).toBe(true);
      expect(failing({ ...READY, problem: v })).toEqual(['problem_filled']);
    },
  );

  it.each(['Nurses wait two days', 'TBDx is a product name', 'Todoist for nurses', 'a 3-step flow...', 'None of the trusts log swaps'])('real text (%j) is content', (v) => {
    expect(isPlaceholder(v)).toBe(false);
  });

  it('each text field is checked on its own, and every failing one is named with its field', () => {
    const r = readinessOf({ ...READY, title: '', problem: 'TBD', target_user: 'lorem ipsum', solution: '...' });
    expect(r.ready).toBe(false);
    const issues = readinessIssues(r);
    expect(issues.map((i) => i.path)).toEqual(['title', 'problem', 'target_user', 'solution']);
    expect(issues[0].message).toContain('title is empty');
    expect(issues[1].message).toContain('placeholder ("TBD")');
  });

  it('evidence: at least one cited entry, or an explicit no_evidence_yet, and not both', () => {
    expect(failing({ ...READY, evidence: [] })).toEqual(['evidence_cited']);
    expect(readinessIssues(readinessOf({ ...READY, evidence: [] }))[0].message).toContain('no_evidence_yet');
    expect(failing({ ...READY, evidence: [], no_evidence_yet: true })).toEqual([]);
    expect(failing({ ...READY, no_evidence_yet: true })).toEqual(['evidence_cited']);
  });

  it('assumptions: at least one, none of them a placeholder', () => {
    expect(failing({ ...READY, assumptions: [] })).toEqual(['assumptions_listed']);
    expect(failing({ ...READY, assumptions: ['real', 'TBD'] })).toEqual(['assumptions_listed']);
    expect(readinessIssues(readinessOf({ ...READY, assumptions: ['real', 'TBD'] }))[0].message).toContain('1 empty or placeholder');
  });

  it('open risks may be none, but not a placeholder', () => {
    expect(failing({ ...READY, open_risks: [] })).toEqual([]);
    expect(failing({ ...READY, open_risks: ['TODO'] })).toEqual(['open_risks_filled']);
  });

  it('size limits: a long title, field, list or item fails one check that names every excess', () => {
    const long = 'a'.repeat(READINESS_LIMITS.text + 1);
    const r = readinessOf({
      ...READY,
      title: 'T'.repeat(READINESS_LIMITS.title + 1),
      solution: long,
      assumptions: Array.from({ length: READINESS_LIMITS.items + 1 }, (_, i) => `assumption ${i}`),
      open_risks: ['r'.repeat(READINESS_LIMITS.item + 1)],
      evidence: Array.from({ length: READINESS_LIMITS.evidence + 1 }, (_, i) => `E${i + 1}`),
    });
    expect(r.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['size_limits']);
    const size = r.checks.find((c) => c.check === 'size_limits')!;
    expect(size.path).toBe('title');
    for (const part of ['title is 121', 'solution is 2001', 'assumptions holds 21', 'open_risks.0 is 501', 'evidence cites 31']) expect(size.message).toContain(part);
  });

  it('an empty worksheet fails every content check at once', () => {
    const r = readinessOf(Worksheet.parse({ title: '', problem: '', target_user: '', solution: '' }));
    expect(readinessIssues(r).map((i) => i.check)).toEqual(['title_filled', 'problem_filled', 'target_user_filled', 'solution_filled', 'evidence_cited', 'assumptions_listed']);
  });
});
