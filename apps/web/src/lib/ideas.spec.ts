import { EMPTY_WORKSHEET_FORM, editBodyOf, evidenceBodyOf, evidenceIdsOf, fieldIssuesOf, linesOf, projectSlugOf, worksheetFormOf, worksheetOf } from './ideas';

const W = {
  title: 'Swapboard',
  problem: 'Swaps wait on paper.',
  target_user: 'ward nurses',
  solution: 'A phone app.',
  evidence: ['E1'],
  assumptions: ['managers approve in an app'],
  open_risks: ['vendor access'],
  no_evidence_yet: false,
};

describe('the ideas forms as request bodies (issue 23)', () => {
  it('reads lists one item a line and ledger ids by spaces or commas', () => {
    expect(linesOf('  a \n\n b\r\nc  \n')).toEqual(['a', 'b', 'c']);
    expect(linesOf('  \n')).toEqual([]);
    expect(evidenceIdsOf('e1, E3;E1  E2')).toEqual(['E1', 'E3', 'E2']);
    expect(evidenceIdsOf('   ')).toEqual([]);
  });

  it('makes the worksheet POST /v1/ideas takes from the form, and the form back from a worksheet', () => {
    const form = { ...EMPTY_WORKSHEET_FORM, title: ' Swapboard ', problem: 'p', target_user: 't', solution: 's', assumptions: 'one\ntwo\n', open_risks: '', no_evidence_yet: true };
    expect(worksheetOf(form)).toEqual({ title: 'Swapboard', problem: 'p', target_user: 't', solution: 's', evidence: [], assumptions: ['one', 'two'], open_risks: [], no_evidence_yet: true });
    expect(worksheetOf(worksheetFormOf(W))).toEqual(W);
  });

  it('an edit sends only the fields that differ from its base, and names the base; nothing changed is not sent', () => {
    const form = { ...worksheetFormOf(W), problem: 'Swaps take two days.', assumptions: 'managers approve in an app\nnurses have phones' };
    expect(editBodyOf({ version: 2, worksheet: W }, form)).toEqual({
      ok: true,
      body: { problem: 'Swaps take two days.', assumptions: ['managers approve in an app', 'nurses have phones'], base_version: 2 },
    });
    expect(editBodyOf({ version: 2, worksheet: W }, { ...worksheetFormOf(W), no_evidence_yet: true, evidence: '' })).toEqual({ ok: true, body: { evidence: [], no_evidence_yet: true, base_version: 2 } });
    // Whitespace alone is no change.
    expect(editBodyOf({ version: 3, worksheet: W }, { ...worksheetFormOf(W), title: 'Swapboard  ', assumptions: 'managers approve in an app\n\n' })).toEqual({
      ok: false,
      message: 'Nothing differs from version 3: change a field to make a new version.',
    });
  });

  it('a ledger entry: trimmed, supersedes only when named', () => {
    expect(evidenceBodyOf({ claim: ' 31 swaps ', source: 'ward log', kind: 'metric', date: '2026-03-31', supersedes: '' })).toEqual({ claim: '31 swaps', source: 'ward log', kind: 'metric', date: '2026-03-31' });
    expect(evidenceBodyOf({ claim: 'c', source: 's', kind: 'interview', date: '2026-04-01', supersedes: ' e1 ' })).toEqual({ claim: 'c', source: 's', kind: 'interview', date: '2026-04-01', supersedes: 'E1' });
  });

  it("puts the api's issues at the field each names, the rest above the button", () => {
    const fields = ['title', 'problem', 'assumptions', 'evidence'];
    const out = fieldIssuesOf(
      {
        error: 'invalid_idea',
        message: 'x',
        issues: [
          { path: 'title', message: 'title must be text' },
          { path: 'assumptions.1', message: 'assumptions items must be text' },
          { path: 'idea_ref.worksheet.problem', message: 'problem is a placeholder' },
          { path: 'evidence.0', message: 'cites E9' },
          { path: '', message: 'the body must be a JSON object' },
          { path: 'base_version', message: 'differs from the path' },
        ],
      },
      fields,
    );
    expect(out.byField).toEqual({ title: ['title must be text'], assumptions: ['assumptions items must be text'], problem: ['problem is a placeholder'], evidence: ['cites E9'] });
    expect(out.general).toEqual(['the body must be a JSON object', 'base_version: differs from the path']);
    expect(fieldIssuesOf(null, fields)).toEqual({ byField: {}, general: [] });
  });

  it("names a panel's project after the idea's title, else its id", () => {
    expect(projectSlugOf('Swapboard for Wards!', 'idea_0123456789')).toBe('swapboard-for-wards');
    expect(projectSlugOf('  ---  ', 'idea_0123456789')).toBe('idea_0123456789');
    expect(projectSlugOf('x'.repeat(70), 'idea_1')).toHaveLength(60);
  });
});
