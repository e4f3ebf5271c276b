import { parse as parseYaml } from 'yaml';
import type { ExampleProject } from './api-types';

/**
 * "Run a panel on this version" (issue 23): the project file is the shipped panel example's
 * (GET /v1/examples: its providers, judges, moderator, budget and panel settings, cassettes
 * already where the operator keeps them) with its inline `idea` replaced by `idea_ref`, the
 * version by reference, which the api resolves, checks for readiness and locks.
 */

export interface IdeaRefTarget {
  id: string;
  version: number;
}

/** An example's project file as an object, or null when it is not a YAML mapping. */
function projectOf(text: string): Record<string, unknown> | null {
  try {
    const doc: unknown = parseYaml(text);
    return doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The example to copy: the first whose workflow judges ideas (the registry says, `judgesIdeas`)
 * and whose project file carries an inline `idea` to replace. Null when the api offers none.
 */
export function ideaPanelExampleOf(examples: readonly ExampleProject[], judgesIdeas: (workflow: string) => boolean): ExampleProject | null {
  return examples.find((e) => judgesIdeas(e.workflow) && projectOf(e.text)?.idea !== undefined) ?? null;
}

/** The panel's project file as JSON: the example's, `project` named for the idea, `idea` replaced by `idea_ref`. */
export function ideaPanelProjectOf(example: ExampleProject, ref: IdeaRefTarget, project: string): Record<string, unknown> {
  const cfg = projectOf(example.text);
  if (!cfg) throw new Error(`the example ${example.name} is not a project file`);
  const out: Record<string, unknown> = { ...cfg, project, idea_ref: { id: ref.id, version: ref.version } };
  delete out.idea;
  return out;
}
