import { ideaDiffRows, valueText } from './ideas-diff';

const diff = {
  idea_id: 'idea_0123456789',
  from: 1,
  to: 2,
  fields: [
    { field: 'title' as const, changed: false, from: 'Swapboard', to: 'Swapboard' },
    { field: 'problem' as const, changed: true, from: 'Paper forms.', to: 'Two days on paper.' },
    { field: 'assumptions' as const, changed: true, from: ['a'], to: ['a', 'b'] },
    { field: 'open_risks' as const, changed: true, from: [], to: ['vendor'] },
    { field: 'no_evidence_yet' as const, changed: true, from: true, to: false },
  ],
};

describe('the diff between two versions, field by field (issue 23)', () => {
  it("rows in the api's order, values as text, the unchanged kept unless asked", () => {
    expect(ideaDiffRows(diff)).toEqual([
      { field: 'title', label: 'Title', changed: false, from: 'Swapboard', to: 'Swapboard' },
      { field: 'problem', label: 'Problem', changed: true, from: 'Paper forms.', to: 'Two days on paper.' },
      { field: 'assumptions', label: 'Assumptions', changed: true, from: 'a', to: 'a\nb' },
      { field: 'open_risks', label: 'Open risks', changed: true, from: '—', to: 'vendor' },
      { field: 'no_evidence_yet', label: 'No evidence yet', changed: true, from: 'yes', to: 'no' },
    ]);
    expect(ideaDiffRows(diff, true).map((r) => r.field)).toEqual(['problem', 'assumptions', 'open_risks', 'no_evidence_yet']);
  });

  it('shows nothing as an em dash and anything else as JSON', () => {
    expect([valueText(null), valueText(undefined), valueText(''), valueText([])]).toEqual(['—', '—', '—', '—']);
    expect(valueText({ a: 1 })).toBe('{"a":1}');
  });
});
