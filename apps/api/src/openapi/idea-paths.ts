import { AUTH_ERRORS, error, ideaId, json, location201, ref, versionN, WRITE_ERRORS } from './openapi-parts';

type JsonObject = Record<string, unknown>;

/** The idea routes (issue 23): worksheets as copy-on-write versions, their readiness, and the append-only evidence ledger. */
export function ideaPaths(writeNote: string, tooLarge: JsonObject): JsonObject {
  const notFound = error('No such idea (idea_not_found) or version (version_not_found).');
  return {
    '/v1/ideas': {
      post: {
        summary: "Create an idea with its first worksheet version",
        description: `${writeNote} The worksheet: title, problem, target_user, solution, evidence (ids of its ledger entries; a new idea has none yet), assumptions, open_risks, or no_evidence_yet: true. A draft need not be ready; a panel on it must be.`,
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateIdeaRequest') } } },
        responses: { '201': { ...json('The idea', 'IdeaDetail'), headers: location201('idea') }, '400': error('The body is not valid, or it cites a ledger entry the idea does not hold (unknown_evidence); `issues` names each field.'), '413': tooLarge, ...WRITE_ERRORS },
      },
      get: {
        summary: 'The ideas, newest first; with similar_to, the ideas most like that one, best first',
        parameters: [{ name: 'similar_to', in: 'query', description: "an idea's id: Postgres full-text search over every idea's worksheets and panel summaries, ranked", schema: { type: 'string' } }],
        responses: { '200': json('Ideas', 'IdeaList'), '400': error('similar_to is empty.'), '404': notFound, ...AUTH_ERRORS },
      },
    },
    '/v1/ideas/{id}': {
      get: { summary: 'An idea: its latest version, each version\'s lock and the panels run on it, and the builds handed on from it', parameters: [ideaId], responses: { '200': json('The idea', 'IdeaDetail'), '404': notFound, ...AUTH_ERRORS } },
    },
    '/v1/ideas/{id}/versions': {
      get: { summary: "The idea's worksheet versions, oldest first", parameters: [ideaId], responses: { '200': json('Versions', 'IdeaVersionList'), '404': notFound, ...AUTH_ERRORS } },
      post: {
        summary: 'Edit: the changed fields over base_version (default the latest) make the next version',
        description: `${writeNote} Copy-on-write: no version is ever changed. A base_version a panel has locked is refused with 409 naming the version and the run; edit without it (the latest) to make a new version.`,
        parameters: [ideaId],
        requestBody: { required: true, content: { 'application/json': { schema: ref('EditIdeaRequest') } } },
        responses: {
          '201': { ...json('The new version', 'IdeaVersionDetail'), headers: location201('version') },
          '400': error('The body is not valid, or it cites an unknown ledger entry (unknown_evidence).'),
          '404': notFound,
          '409': error('base_version is locked by a panel run (version_locked; `locked_by_run` names it): make a new version instead.'),
          '413': tooLarge,
          ...WRITE_ERRORS,
        },
      },
    },
    '/v1/ideas/{id}/versions/{n}': {
      get: { summary: 'One version with its readiness (every check, passed or not)', parameters: [ideaId, versionN], responses: { '200': json('The version', 'IdeaVersionDetail'), '400': error('n is not a version number.'), '404': notFound, ...AUTH_ERRORS } },
      put: {
        summary: 'Edit aimed at version n: like POST …/versions with base_version n',
        description: `${writeNote} Version n itself never changes: an unlocked n gives the next version (201), a locked one is 409.`,
        parameters: [ideaId, versionN],
        requestBody: { required: true, content: { 'application/json': { schema: ref('EditIdeaRequest') } } },
        responses: {
          '201': { ...json('The new version', 'IdeaVersionDetail'), headers: location201('version') },
          '400': error('The body or n is not valid.'),
          '404': notFound,
          '409': error('Version n is locked by a panel run (version_locked; `locked_by_run` names it): make a new version instead.'),
          '413': tooLarge,
          ...WRITE_ERRORS,
        },
      },
    },
    '/v1/ideas/{id}/diff': {
      get: {
        summary: 'Two versions compared field by field',
        parameters: [ideaId, { name: 'from', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }, { name: 'to', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': json('The diff', 'IdeaDiff'), '400': error('from or to is not a version number.'), '404': notFound, ...AUTH_ERRORS },
      },
    },
    '/v1/ideas/{id}/handoff': {
      post: {
        summary: "Hand a done panel's verdict on as a build run",
        description: `${writeNote} A GO builds the worksheet's solution, the moderator's top problems and risks as its requirements; an ITERATE builds the recommended experiment; a NO-GO is refused. The objective and requirements come from the synthesis of the panel (panel_run_id, default the idea's latest done panel) and the version it scored; \`build\` is the rest of a build project file (providers, agents, budget, repo, test_command …), judged like any submission. The new run's GET shows handed_off_from, its report links back, and the idea lists it under handoffs.`,
        parameters: [ideaId],
        requestBody: { required: true, content: { 'application/json': { schema: ref('HandoffRequest') } } },
        responses: {
          '201': { ...json('The build, queued', 'HandedOffRun'), headers: location201('run') },
          '400': error('The body is not valid, panel_run_id is not a panel on this idea, or the build is refused by the schema or the operator policy (invalid_project_config; each field named under build.).'),
          '404': notFound,
          '409': error('The panel is not done (run_not_done), wrote no full synthesis (no_synthesis), said NO-GO (handoff_refused), or the idea has no done panel (no_done_panel).'),
          '413': tooLarge,
          ...WRITE_ERRORS,
        },
      },
    },
    '/v1/ideas/{id}/evidence': {
      post: {
        summary: "Append an entry to the idea's evidence ledger (E1, E2 …)",
        description: `${writeNote} Append-only: no route changes or deletes an entry; a correction is a new entry with supersedes. logged_by is the token's name.`,
        parameters: [ideaId],
        requestBody: { required: true, content: { 'application/json': { schema: ref('LogEvidenceRequest') } } },
        responses: { '201': json('The entry', 'EvidenceEntry'), '400': error('The body is not valid, or supersedes names an unknown entry (unknown_evidence).'), '404': notFound, '413': tooLarge, ...WRITE_ERRORS },
      },
      get: { summary: "The idea's ledger, oldest first, each entry with what supersedes it", parameters: [ideaId], responses: { '200': json('Entries', 'EvidenceList'), '404': notFound, ...AUTH_ERRORS } },
    },
  };
}
