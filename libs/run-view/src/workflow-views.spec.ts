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

describe("run-view's workflow registry under a polluted prototype", () => {
  it('reads only its own entries: an inherited panelView opens nothing', () => {
    Object.defineProperty(Object.prototype, 'panelView', { value: true, configurable: true, writable: true });
    try {
      for (const w of ['toString', '__proto__', 'constructor', 'experiment', 'build']) expect({ w, panel: hasPanelView(w) }).toEqual({ w, panel: false });
      expect(hasPanelView('panel')).toBe(true);
      expect(workflowOfView({ ...emptyRunView(), panel: emptyPanelView() })).toBe('panel');
    } finally {
      delete (Object.prototype as { panelView?: unknown }).panelView;
    }
  });
});
