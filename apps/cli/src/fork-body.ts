import { UsageError, type OptionValues } from './cli-args';

/** What POST /v1/runs/:id/fork takes (apps/api/src/fork-request.schema.ts). */
export interface ForkBody {
  from: string;
  edits?: Record<string, unknown>;
}

const listOf = (v: OptionValues[string]): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []);

/** `ROLE=PROVIDER[:MODEL]` or `ROLE=:MODEL` (the model alone) → one agent's edit. */
function agentEdit(spec: string): [string, Record<string, string>] {
  const m = /^([a-z_]+)=([^:]*)(?::(.+))?$/.exec(spec.trim());
  if (!m || (!m[2] && !m[3])) throw new UsageError(`--agent takes ROLE=PROVIDER[:MODEL] or ROLE=:MODEL (e.g. critic=anthropic:claude-sonnet-4-5), got ${JSON.stringify(spec)}`, 'fork');
  const [, role, provider, model] = m;
  return [role, { ...(provider ? { provider } : {}), ...(model ? { model } : {}) }];
}

/**
 * The body from `fork`'s options: --from upper-cased; --objective; every --requirement, in order,
 * as the whole new list; each --agent as that role's provider and/or model; all laid over `file`
 * (a part of a project file, already read with its variables expanded). The API judges the result
 * as a new submission and names what it refuses.
 */
export function forkBody(values: OptionValues, file: Record<string, unknown> = {}): ForkBody {
  const from = typeof values.from === 'string' ? values.from.trim().toUpperCase() : '';
  if (!from) throw new UsageError('fork needs --from STAGE: the stage to run again from (every call before it is copied, e.g. CRITIQUE)', 'fork');
  const edits: Record<string, unknown> = { ...file };
  if (typeof values.objective === 'string') edits.objective = values.objective;
  const requirements = listOf(values.requirement).map((r) => r.trim()).filter(Boolean);
  if (requirements.length) edits.requirements = requirements;
  const agents = listOf(values.agent).map(agentEdit);
  if (agents.length) {
    const given = (edits.agents ?? {}) as Record<string, Record<string, unknown>>;
    edits.agents = { ...given, ...Object.fromEntries(agents.map(([role, edit]) => [role, { ...given[role], ...edit }])) };
  }
  return Object.keys(edits).length ? { from, edits } : { from };
}
