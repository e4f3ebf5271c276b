import type { ModeratorSynthesis } from '@roundtable/contracts';
import { HandoffRefused, handoffToBuild } from './handoff';

const SHEET = { title: 'Dental no-show reminders', problem: 'Lose a fifth of their slots to no-shows.', target_user: 'small dental practices', solution: 'SMS reminders with one-tap rescheduling.' };
const SOURCE = { idea_id: 'idea_1', version: 2, panel_run_id: 'run_p' };
const synthesis = (overall_recommendation: ModeratorSynthesis['overall_recommendation']): ModeratorSynthesis => ({
  overall_recommendation,
  confidence: 0.7,
  top_strengths: ['clear pain', 'cheap to run', 'easy to sell'],
  top_risks: ['SMS costs eat the margin.', 'Practices already have a reminder tool'],
  top_problems: ['No integration with practice software;', 'Consent for SMS'],
  biggest_disagreement: 'vc and competitor split on whether incumbents copy it',
  recommended_experiment: 'Run reminders by hand for three practices for a month',
});

describe('handoffToBuild', () => {
  it("builds a GO's solution, each top problem and risk a requirement, with its source", () => {
    const h = handoffToBuild(SHEET, synthesis('GO'), SOURCE);
    expect(h.objective).toBe('Dental no-show reminders: SMS reminders with one-tap rescheduling — for small dental practices, who lose a fifth of their slots to no-shows.');
    expect(h.requirements).toEqual([
      "Address the panel's problem: No integration with practice software",
      "Address the panel's problem: Consent for SMS",
      "Mitigate the panel's risk: SMS costs eat the margin",
      "Mitigate the panel's risk: Practices already have a reminder tool",
    ]);
    expect(h.source).toEqual({ ...SOURCE, recommendation: 'GO' });
  });

  it("builds an ITERATE's recommended experiment, settling the disagreement", () => {
    const h = handoffToBuild(SHEET, synthesis('ITERATE'), SOURCE);
    expect(h.objective).toBe(`Build the smallest thing that runs the panel's recommended experiment for "Dental no-show reminders": Run reminders by hand for three practices for a month.`);
    expect(h.requirements[0]).toBe("The experiment's result is recorded in a form that settles the panel's disagreement: vc and competitor split on whether incumbents copy it");
    expect(h.requirements).toHaveLength(3);
    expect(h.source.recommendation).toBe('ITERATE');
  });

  it('refuses a NO-GO, naming the run, the version and the way out', () => {
    expect(() => handoffToBuild(SHEET, synthesis('NO-GO'), SOURCE)).toThrow(HandoffRefused);
    expect(() => handoffToBuild(SHEET, synthesis('NO-GO'), SOURCE)).toThrow('panel run_p said NO-GO on version 2: a NO-GO is not handed on; edit the worksheet (a new version) and run a panel on it');
  });
});
