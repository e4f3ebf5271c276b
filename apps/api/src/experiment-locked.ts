import { parse as parseYaml } from 'yaml';
import { canonicalJson, liftNestedProject, PREREGISTRATION_GATE } from '@roundtable/contracts';
import type { ExperimentEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';

const isMapping = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The first path in `body` (in its own key order) whose value differs from `stored`: a mapping on
 * both sides is looked into, anything else (a list, a scalar) is compared whole, so a changed
 * criterion names `preregistration.success_criteria`. Null when the body changes nothing.
 */
export function firstDifference(body: unknown, stored: unknown, path: string[] = []): string | null {
  if (isMapping(body) && isMapping(stored)) {
    for (const [key, value] of Object.entries(body)) {
      const found = firstDifference(value, stored[key], [...path, key]);
      if (found) return found;
    }
    return null;
  }
  if (body === undefined) return null;
  return canonicalJson(body) === canonicalJson(stored ?? null) ? null : path.join('.') || '(body)';
}

/** A PATCH or PUT body as a mapping: JSON, or YAML text as POST /v1/experiments takes it; anything else compares whole. */
function bodyMapping(body: unknown): unknown {
  if (typeof body !== 'string') return isMapping(body) ? liftNestedProject(body) : body;
  try {
    const parsed: unknown = parseYaml(body);
    return isMapping(parsed) ? liftNestedProject(parsed) : parsed;
  } catch {
    return body;
  }
}

/**
 * Why an edit of an experiment is refused, always: a locked preregistration never changes (the
 * criteria cannot move after the numbers are seen), a changed copy is a new experiment, and a
 * draft is changed only at its gate. The reply names the first field the body would change.
 */
export function editRefusal(row: ExperimentEntity, file: Record<string, unknown>, body: unknown): ApiError {
  const stored = { ...file, preregistration: row.prereg ?? undefined, commit: row.commit ?? file.commit, repo: row.repo ?? file.repo };
  const field = firstDifference(bodyMapping(body), stored);
  if (!row.prereg || !row.lockedAt || !row.preregHash) {
    const gate = row.runId
      ? `POST /v1/runs/${row.runId}/approvals with gate "${PREREGISTRATION_GATE}" to approve or reject it`
      : `its run's "${PREREGISTRATION_GATE}" gate`;
    return new ApiError(409, {
      error: 'experiment_draft',
      field,
      message: `experiment ${row.id} is a ${row.status === 'rejected' ? 'rejected draft' : 'draft'}: a draft is approved or rejected at its gate (${gate}), not edited here`,
    });
  }
  return new ApiError(409, {
    error: 'experiment_locked',
    field,
    message:
      `experiment ${row.id} is locked since ${row.lockedAt.toISOString()} with hash ${row.preregHash.slice(0, 12)}…` +
      `${field ? `: ${field} cannot change` : ''}; a preregistration is never edited after it is locked. A changed copy is a new experiment (POST /v1/experiments)`,
  });
}
