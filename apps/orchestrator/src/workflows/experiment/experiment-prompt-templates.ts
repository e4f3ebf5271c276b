import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkExperimentTemplates, EXPERIMENT_PLACEHOLDERS, type ExperimentPromptTemplates, type ExperimentTemplateName } from '@roundtable/workflow';

/**
 * prompts/preamble.md and prompts/experiment/<name>.md, read once at start. A template that is
 * missing, empty, or uses a placeholder its pack never fills stops the orchestrator at boot, not
 * an experiment at its reading.
 */
export function loadExperimentPromptTemplates(dir: string): ExperimentPromptTemplates {
  const templates: Partial<ExperimentPromptTemplates> = {};
  for (const name of Object.keys(EXPERIMENT_PLACEHOLDERS) as ExperimentTemplateName[]) {
    const file = name === 'preamble' ? path.join(dir, 'preamble.md') : path.join(dir, 'experiment', `${name}.md`);
    if (existsSync(file)) templates[name] = readFileSync(file, 'utf8');
  }
  const problems = checkExperimentTemplates(templates);
  if (problems.length) throw new Error(`experiment prompt templates in ${dir} do not match the experiment's context packs:\n  ${problems.join('\n  ')}`);
  return templates as ExperimentPromptTemplates;
}
