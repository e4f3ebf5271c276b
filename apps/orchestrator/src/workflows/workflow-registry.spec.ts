import path from 'node:path';
import { jobNamesOf } from '@roundtable/contracts';
import { loadPromptTemplates } from '../prompt-templates';
import { loadExperimentPromptTemplates } from './experiment/experiment-prompt-templates';
import { experimentWorkflow } from './experiment/experiment.workflow';
import { loadPanelPromptTemplates } from './panel/panel-prompt-templates';
import { checkJobTables, registered, workflowRegistry } from './workflow-registry';
import { buildWorkflow } from './build/build.workflow';
import { panelWorkflow } from './panel/panel.workflow';
import { IGNORED } from './workflow-definition';

const PROMPTS = path.resolve(__dirname, '../../../../prompts');

describe('the workflow registry boot check', () => {
  it('the orchestrator registry { build, panel, experiment } has a handler, or IGNORED, for every orchestrator job in the catalogue', () => {
    const registry = workflowRegistry({
      build: { templates: loadPromptTemplates(PROMPTS) },
      panel: { templates: loadPanelPromptTemplates(PROMPTS) },
      experiment: { templates: loadExperimentPromptTemplates(PROMPTS), methodTimeoutS: { default: 600, max: 3600 } },
    });
    expect(Object.keys(registry).sort()).toEqual(['build', 'experiment', 'panel']);
    for (const w of Object.values(registry)) {
      for (const name of jobNamesOf('orchestrator')) expect(w.jobs[name as keyof typeof w.jobs]).toBeDefined();
    }
    // The panel has no workspace, tests or resume: it ignores those jobs by name, not by omission.
    expect(panelWorkflow.jobs['workspace.done']).toBe(IGNORED);
    expect(buildWorkflow.jobs['workspace.done']).not.toBe(IGNORED);
    // The experiment's method reports as tests.done; it has no workspace of its own to prepare or apply to.
    expect(experimentWorkflow.jobs['workspace.done']).toBe(IGNORED);
    expect(experimentWorkflow.jobs['tests.done']).not.toBe(IGNORED);
  });

  it('refuses to start with a workflow missing a handler for a job, naming the workflow, the job and the fix', () => {
    const { 'run.cancel': _dropped, ...jobs } = panelWorkflow.jobs;
    const broken = registered({ ...panelWorkflow, jobs: jobs as typeof panelWorkflow.jobs }, () => ({ templates: loadPanelPromptTemplates(PROMPTS) }));
    const build = registered(buildWorkflow, () => ({ templates: loadPromptTemplates(PROMPTS) }));
    expect(() => checkJobTables({ build, panel: broken })).toThrow(
      /no handler for job\(s\) panel: run\.cancel: add each to that workflow's job table \(apps\/orchestrator\/src\/workflows\/\), as a handler or IGNORED/,
    );
    // The complete pair passes the same check.
    expect(checkJobTables({ build, panel: registered(panelWorkflow, () => ({ templates: loadPanelPromptTemplates(PROMPTS) })) })).toBeTruthy();
  });
});
