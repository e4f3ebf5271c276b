import { judgeScores, panelShowLines, PanelSummary } from './panel-show';
import { styleFor } from './terminal';

const plain = styleFor({ write: () => undefined }, {});

const panel: PanelSummary = {
  idea: 'Invoices for freelancers',
  recommendation: 'ITERATE',
  confidence: 0.6,
  scores: { competitor: 3, vc: 7, engineer: 5 },
  revote_baseline: { vc: 5, engineer: 6, competitor: 3 },
  debate_messages: 10,
  max_debate_rounds: 2,
  quality: 'ok',
  warnings: [],
  appeal: null,
  can_appeal: true,
};

describe('panel show lines', () => {
  it('lists the judges in panel order with each re-vote delta', () => {
    expect(judgeScores(panel)).toBe('vc 7 (+2), engineer 5 (-1), competitor 3 (±0)');
    expect(judgeScores({ scores: { pm: 4 }, revote_baseline: null })).toBe('pm 4');
    expect(judgeScores({ scores: {}, revote_baseline: null })).toBe('-');
  });

  it('replaces rounds with the idea, scores, debate and what may still happen', () => {
    const lines = Object.fromEntries(panelShowLines(panel, plain));
    expect(lines).toMatchObject({
      idea: 'Invoices for freelancers',
      judges: 'vc 7 (+2), engineer 5 (-1), competitor 3 (±0)',
      debate: '10 messages (at most 2 rounds)',
      appeal: 'possible: roundtable appeal <run> --evidence TEXT --judge J',
    });
    expect(lines.rounds).toBeUndefined();
    const appealed = Object.fromEntries(panelShowLines({ ...panel, appeal: { status: 'completed', judges: ['vc'] }, can_appeal: 'already appealed' }, plain));
    expect(appealed.appeal).toBe('completed (vc)');
  });
});
