import { AUTH_ERRORS, error, json, location201, ref, WRITE_ERRORS } from './openapi-parts';

type JsonObject = Record<string, unknown>;

const experimentId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'exp_0123456789' };

/** The experiment routes (issue 24): preregistered and locked, never edited, run once; and an idea's recommended experiment drafted. */
export function experimentPaths(writeNote: string, tooLarge: JsonObject): JsonObject {
  const notFound = error('No such experiment (experiment_not_found).');
  // YAML is also taken as text/yaml, application/x-yaml and text/plain, as POST /v1/runs takes it.
  const file = { 'application/json': { schema: ref('ExperimentProjectConfig') }, 'application/yaml': { schema: { type: 'string', description: 'the same experiment file as YAML text' } } };
  const editRefused = { description: 'Always: a locked preregistration is never edited (experiment_locked: the lock time, the hash, and that a changed copy is a new experiment), and a draft is approved or rejected at its gate (experiment_draft). `field` names the first field the body would change.', content: { 'application/json': { schema: ref('ExperimentEditRefused') } } };
  const edit = (summary: string) => ({ summary, description: `${writeNote} Nothing is ever changed here.`, parameters: [experimentId], requestBody: { required: false, content: file }, responses: { '404': notFound, '409': editRefused, '413': tooLarge, ...WRITE_ERRORS } });
  return {
    '/v1/experiments': {
      post: {
        summary: 'Preregister an experiment: validated, hashed and locked, pinned to a commit; or a draft (draft_from) whose run starts at once',
        description: `${writeNote} The file (workflow: experiment) is judged like a submitted project file: \`\${VAR}\` refused, the operator policy (providers, the repo under its roots), the paths on this machine, and the providers' workers. The repo must be a git repository; the commit (default its HEAD) is resolved and stored. The preregistration's hash is sha256 of its canonical JSON. A file with draft_from and a proposer is a draft: its run drafts a preregistration that a person approves at the run's "preregistration" gate.`,
        requestBody: { required: true, content: file },
        responses: {
          '201': { ...json('The experiment', 'ExperimentDetail'), headers: location201('experiment') },
          '400': error('The file is refused (invalid_project_config; `issues` names each field): the schema (an unknown metric in a criterion, the critic on the interpreter\'s provider …), the policy, a repo that is not a git repository, a commit it does not hold, an unknown hypothesis_id.'),
          '413': tooLarge,
          '415': error('The body is neither JSON nor YAML text.'),
          ...WRITE_ERRORS,
        },
      },
      get: {
        summary: 'The experiments, newest first (at most 200)',
        parameters: [
          { name: 'project', in: 'query', description: 'a project name', schema: { type: 'string' } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['draft', 'locked', 'decided', 'rejected'] } },
          { name: 'idea', in: 'query', description: "an idea id: the experiments drafted from its panels' recommended experiments", schema: { type: 'string' } },
        ],
        responses: { '200': json('Experiments', 'ExperimentList'), '400': error('A query parameter is not valid.'), ...AUTH_ERRORS },
      },
    },
    '/v1/experiments/{id}': {
      get: { summary: 'An experiment: its preregistration, hash, pinned commit, result, decision and interpretation, and its runs (newest first)', parameters: [experimentId], responses: { '200': json('The experiment', 'ExperimentDetail'), '404': notFound, ...AUTH_ERRORS } },
      patch: edit('Refused: a locked preregistration is never edited'),
      put: edit('Refused: a locked preregistration is never replaced'),
    },
    '/v1/experiments/{id}/run': {
      post: {
        summary: 'Run a locked experiment (a run of workflow experiment)',
        description: `${writeNote} Refused for a draft or a rejected experiment, one that already has a result (a changed copy is a new experiment), one whose stored preregistration no longer hashes to its lock, and one with a run still live.`,
        parameters: [experimentId],
        responses: {
          '202': { ...json('The run, queued', 'ExperimentStarted'), headers: { Location: { schema: { type: 'string' }, description: "the run's URL" } } },
          '400': error("A provider no live worker serves (invalid_project_config)."),
          '404': notFound,
          '409': error('Not locked (experiment_not_locked), a result already stored (experiment_has_result), the preregistration altered after its lock (experiment_altered), or a run still live (experiment_run_live; `run_id` names it).'),
          ...WRITE_ERRORS,
        },
      },
    },
    '/v1/experiments/{id}/report': {
      get: {
        summary: "The experiment's record as markdown: plan, pin and hash, each criterion (code's holds beside the interpreter's reading), the computed decision, an override request (not applied), the review, metrics, source",
        parameters: [experimentId],
        responses: { '200': { description: 'The report', content: { 'text/markdown': { schema: { type: 'string' } } } }, '404': notFound, ...AUTH_ERRORS },
      },
    },
    '/v1/ideas/{id}/experiment': {
      post: {
        summary: "Draft an experiment from a done panel's recommended experiment",
        description: `${writeNote} The body is an experiment file without its preregistration, draft_from and commit (repo, providers, proposer, interpreter, critic, budget, domain), and panel_run_id (default the idea's latest done panel). The experiment is a draft drawn from "<idea title>: <recommended experiment>", pinned to the repository's HEAD, its source the idea and the panel; its run starts at once.`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'idea_0123456789' }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('IdeaExperimentRequest') } } },
        responses: {
          '201': { ...json('The draft and its run', 'ExperimentStarted'), headers: location201('experiment') },
          '400': error('The body gives what the idea gives (invalid_experiment_request), panel_run_id is not a panel on this idea, or the file is refused (invalid_project_config; each field named).'),
          '404': error('No such idea (idea_not_found).'),
          '409': error('The idea has no done panel (no_done_panel), the panel is not done (run_not_done), or it has no full synthesis with a recommended experiment (no_recommended_experiment).'),
          '413': tooLarge,
          ...WRITE_ERRORS,
        },
      },
    },
  };
}
