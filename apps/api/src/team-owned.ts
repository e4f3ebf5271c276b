import { statement } from '@roundtable/persistence';
import { ApiError } from './api-error';

/** The owning team of one row, by its primary key: the team door's one query per request. */
const teamOf = (table: string) =>
  statement<{ team: string }>()({ text: `SELECT team FROM ${table} WHERE id = $1`, params: (id: string): unknown[] => [id] });

/**
 * The things a team owns (issue 26), each with the path its routes live under, the statement
 * that reads its team, and the 404 a missing one answers. The team door answers this same 404
 * for another team's row, so a caller cannot tell the two apart (no oracle for ids); a service
 * that takes such an id in a query or a body answers it too.
 */
export const TEAM_OWNED = {
  run: { mount: '/v1/runs', teamOf: teamOf('runs'), notFound: (id: string) => ApiError.notFound('run_not_found', `no run ${id}`) },
  idea: { mount: '/v1/ideas', teamOf: teamOf('ideas'), notFound: (id: string) => ApiError.notFound('idea_not_found', `no idea ${id}`) },
  experiment: {
    mount: '/v1/experiments',
    teamOf: teamOf('experiments'),
    notFound: (id: string) => ApiError.notFound('experiment_not_found', `no experiment ${id}; GET /v1/experiments lists them`),
  },
  eval: { mount: '/v1/evals', teamOf: teamOf('evals'), notFound: (id: string) => ApiError.notFound('eval_not_found', `no eval ${id}; GET /v1/evals lists them`) },
} as const;

export type TeamOwnedKind = keyof typeof TEAM_OWNED;

export const ideaNotFound = TEAM_OWNED.idea.notFound;
export const runNotFound = TEAM_OWNED.run.notFound;
