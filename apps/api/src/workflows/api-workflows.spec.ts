import { ApiError } from '../api-error';
import { apiWorkflowOf, findApiWorkflow, WORKFLOW_NAMES } from './api-workflows';

describe("the api's workflow registry", () => {
  it('knows the build, the panel and the experiment, in the order lists name them', () => {
    expect(WORKFLOW_NAMES).toEqual(['build', 'panel', 'experiment']);
  });

  it('answers a run of a workflow it does not know with a 409 that names the known ones', () => {
    let thrown: unknown;
    try {
      apiWorkflowOf({ id: 'r1', workflow: 'plan' });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).getStatus()).toBe(409);
    expect((thrown as ApiError).getResponse()).toMatchObject({ error: 'unknown_workflow', message: expect.stringContaining('it knows build, panel, experiment') });
  });

  it("takes no inherited property for a workflow (a run row's column is data)", () => {
    for (const name of ['toString', 'constructor', '__proto__']) expect(findApiWorkflow(name)).toBeUndefined();
  });

  it('resumes a build where it stopped short of done, a panel only once halted, and appeals only a panel', () => {
    expect(apiWorkflowOf({ id: 'r1', workflow: 'build' }).module.resumable).toEqual(['halted', 'needs_input', 'failed']);
    expect(apiWorkflowOf({ id: 'r1', workflow: 'panel' }).module.resumable).toEqual(['halted']);
    expect(WORKFLOW_NAMES.filter((w) => findApiWorkflow(w)!.appealable)).toEqual(['panel']);
    expect(WORKFLOW_NAMES.filter((w) => findApiWorkflow(w)!.noFiles === null)).toEqual(['build']);
  });
});
