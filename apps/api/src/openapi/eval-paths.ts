import { AUTH_ERRORS, error, json, location201, ref, WRITE_ERRORS } from './openapi-parts';

type JsonObject = Record<string, unknown>;

const evalId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'eval_0123456789' };

/** The eval routes (issue 25): a suite's tasks under several configurations at equal budget, scored. */
export function evalPaths(writeNote: string, tooLarge: JsonObject): JsonObject {
  const notFound = error('No such eval (eval_not_found).');
  return {
    '/v1/evals': {
      post: {
        summary: 'Start an eval: every task under every configuration (and the baselines derived from the first) as ordinary runs at the same budget per task',
        description: `${writeNote} The CLI (\`roundtable eval <suite> --configs …\`) reads evals/<suite>/ and sends this. Every run's project file is checked as a submitted one is (schema, operator policy, providers); one refusal refuses the eval, naming the configuration and the task, before anything is written. A task's starter is a server path under the policy's repos.roots. The hidden tests are stored apart and only the scorer reads them, into a copy of the run's final workspace, after the run has ended.`,
        requestBody: { required: true, content: { 'application/json': { schema: ref('EvalRequest') } } },
        responses: {
          '201': { ...json('The eval, its runs queued', 'EvalDetail'), headers: location201('eval') },
          '400': error('The request is refused (invalid_eval; `issues` names each field): the schema, two configurations with one name, a configuration a run cannot start with (the policy, a provider no worker serves).'),
          '413': tooLarge,
          ...WRITE_ERRORS,
        },
      },
      get: {
        summary: 'The evals, newest first (at most 100)',
        parameters: [{ name: 'suite', in: 'query', description: 'a suite name', schema: { type: 'string' } }],
        responses: { '200': json('Evals', 'EvalList'), '400': error('A query parameter is not valid.'), ...AUTH_ERRORS },
      },
    },
    '/v1/evals/{id}': {
      get: {
        summary: "An eval: its configurations, tasks, cells (each task under each configuration: runs, score, usage) and the summary (pass rates with 95 % Wilson intervals, paired differences with McNemar's test)",
        parameters: [evalId],
        responses: { '200': json('The eval', 'EvalDetail'), '404': notFound, ...AUTH_ERRORS },
      },
    },
    '/v1/evals/{id}/plot.svg': {
      get: {
        summary: 'Pass rate against cost, one point per configuration with its 95 % interval (SVG)',
        parameters: [evalId],
        responses: { '200': { description: 'The plot', content: { 'image/svg+xml': { schema: { type: 'string' } } } }, '404': notFound, ...AUTH_ERRORS },
      },
    },
  };
}
