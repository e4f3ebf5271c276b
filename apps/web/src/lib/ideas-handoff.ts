import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { Built } from './act-requests';
import type { ExampleProject } from './api-types';

/**
 * "Hand on as a build" (issue 23): POST /v1/ideas/:id/handoff with the panel run to hand on and the
 * build's settings. The api writes the build's objective and requirements from the panel's
 * synthesis; the rest — providers, agents, budget, tests — is the person's, typed as YAML and
 * prefilled from the shipped build example.
 */

/** The fields the handoff writes itself: the api refuses them in the build part. */
const WRITTEN_BY_THE_HANDOFF = ['objective', 'requirements', 'workflow', 'idea', 'idea_ref', 'project'] as const;

function mappingOf(text: string): Record<string, unknown> | null {
  try {
    const doc: unknown = parseYaml(text);
    return doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The build settings to start from: the first example (one with no `${VAR}` before one with) whose
 * workflow judges no idea and whose project file has an objective (a build's), without the fields
 * the handoff writes; '' when none.
 */
export function handoffBuildTemplate(examples: readonly ExampleProject[], judgesIdeas: (workflow: string) => boolean): string {
  // One that runs as posted first: a `${VAR}` is the person's shell's to expand, and the api refuses it.
  const runsAsPosted = (e: ExampleProject) => (e.text.includes('${') ? 1 : 0);
  for (const e of [...examples].sort((a, b) => runsAsPosted(a) - runsAsPosted(b))) {
    const cfg = judgesIdeas(e.workflow) ? null : mappingOf(e.text);
    if (!cfg || cfg.objective === undefined) continue;
    const part: Record<string, unknown> = { ...cfg };
    for (const f of WRITTEN_BY_THE_HANDOFF) delete part[f];
    return toYaml(part);
  }
  return '';
}

export interface HandoffBody {
  panel_run_id: string;
  build: Record<string, unknown>;
}

/** The body from the form: the chosen panel run and the build settings as YAML (a mapping). */
export function handoffBody(panelRunId: string, buildYaml: string): Built<HandoffBody> {
  const issues: Record<string, string> = {};
  if (!panelRunId) issues.panel_run_id = 'panel_run_id must name a done panel on this idea (a GO or an ITERATE)';
  let build: Record<string, unknown> | null = null;
  try {
    const doc: unknown = parseYaml(buildYaml);
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) issues.build = 'build must be a YAML mapping: providers, agents, budget, test_command …';
    else build = doc as Record<string, unknown>;
  } catch (e) {
    issues.build = `build is not valid YAML: ${(e as Error).message.split('\n')[0]}`;
  }
  if (Object.keys(issues).length || !build) return { ok: false, issues };
  return { ok: true, body: { panel_run_id: panelRunId, build } };
}

/** The panels a handoff may take: the idea's remembered (done) panels that said GO or ITERATE, newest first. */
export function handoffCandidates<M extends { run_id: string; recommendation: string }>(memory: readonly M[]): M[] {
  return memory.filter((m) => m.recommendation === 'GO' || m.recommendation === 'ITERATE');
}
