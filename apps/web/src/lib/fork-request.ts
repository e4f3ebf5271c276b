/**
 * The Fork act's body (POST /v1/runs/:id/fork, apps/api fork-request.schema.ts) from what its form
 * holds: the stage, the objective and requirements as edited (sent only when they differ from the
 * run's inputs), and any other edits typed as YAML (a part of a project file: agents, budget …).
 * The api judges the result as a new submission and names the field it refuses; this says what it
 * can before a round trip.
 */
import { parse as parseYaml } from 'yaml';
import type { Built, FormIssues } from './act-requests';

export interface ForkInputs {
  objective: string;
  requirements: readonly string[];
}

export interface ForkForm {
  from: string;
  /** Present when the workflow offers its inputs for editing (the build's objective and requirements). */
  objective?: string;
  /** One requirement a line. */
  requirements?: string;
  /** More edits, as YAML text (blank: none). */
  more: string;
}

export interface ForkBody {
  from: string;
  edits?: Record<string, unknown>;
}

const linesOf = (text: string): string[] => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export function forkBody(form: ForkForm, inputs: ForkInputs | null): Built<ForkBody> {
  const issues: FormIssues = {};
  if (!form.from) issues.from = 'from must name a stage: every call before it is copied, the rest asked again';
  let edits: Record<string, unknown> = {};
  if (form.more.trim()) {
    try {
      const more: unknown = parseYaml(form.more);
      if (typeof more !== 'object' || more === null || Array.isArray(more)) issues.more = 'more edits must be a YAML mapping, e.g. "agents: { critic: { model: grok-4 } }"';
      else edits = { ...(more as Record<string, unknown>) };
    } catch (e) {
      issues.more = `more edits are not valid YAML: ${(e as Error).message.split('\n')[0]}`;
    }
  }
  if (form.objective !== undefined) {
    const objective = form.objective.trim();
    if (!objective) issues.objective = 'objective must not be empty';
    else if (objective !== inputs?.objective) edits.objective = objective;
  }
  if (form.requirements !== undefined) {
    const requirements = linesOf(form.requirements);
    if (!requirements.length) issues.requirements = 'requirements must hold at least one (one a line)';
    else if (!sameList(requirements, inputs?.requirements ?? [])) edits.requirements = requirements;
  }
  if (Object.keys(issues).length) return { ok: false, issues };
  return { ok: true, body: Object.keys(edits).length ? { from: form.from, edits } : { from: form.from } };
}

/** The stages a fork may start from: those the run made calls at, in the order it first reached each. */
export function forkStages(calls: readonly { stage: string }[]): string[] {
  return [...new Set(calls.map((c) => c.stage))];
}

/** The statuses the api forks from: a run that has ended (contracts' TERMINAL_RUN_STATUSES, restated: no zod in the browser). */
const ENDED: ReadonlySet<string> = new Set(['done', 'halted', 'needs_input', 'cancelled', 'failed']);
export const offersFork = (status: string): boolean => ENDED.has(status);
