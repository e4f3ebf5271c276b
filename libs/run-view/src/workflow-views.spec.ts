import { emptyPanelView, emptyRunView } from './empty-run-view';
import { hasPanelView, workflowOfView } from './workflow-views';

describe("run-view's workflow registry", () => {
  it("opens a panel part for the panel's runs only", () => {
    expect(hasPanelView('panel')).toBe(true);
    expect(hasPanelView('build')).toBe(false);
    // Unknown, absent, or an inherited property: no panel part.
    for (const w of ['experiment', null, undefined, 'toString', '__proto__']) expect(hasPanelView(w)).toBe(false);
  });

  it("names the run's workflow from run_created, or from the panel part a follow from ?after= folded", () => {
    expect(workflowOfView({ ...emptyRunView(), workflow: 'build' })).toBe('build');
    expect(workflowOfView(emptyRunView())).toBeNull();
    expect(workflowOfView({ ...emptyRunView(), panel: emptyPanelView() })).toBe('panel');
  });
});
