import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPanelTemplates, PANEL_PLACEHOLDERS, type PanelPromptTemplates, type PanelTemplateName } from '@roundtable/workflow';

/**
 * prompts/preamble.md and prompts/panel/<name>.md, read once at start. A template that is
 * missing, empty, or uses a placeholder its pack never fills stops the orchestrator at boot,
 * not a panel midway through its debate.
 */
export function loadPanelPromptTemplates(dir: string): PanelPromptTemplates {
  const templates: Partial<PanelPromptTemplates> = {};
  for (const name of Object.keys(PANEL_PLACEHOLDERS) as PanelTemplateName[]) {
    const file = name === 'preamble' ? path.join(dir, 'preamble.md') : path.join(dir, 'panel', `${name}.md`);
    if (existsSync(file)) templates[name] = readFileSync(file, 'utf8');
  }
  const problems = checkPanelTemplates(templates);
  if (problems.length) throw new Error(`panel prompt templates in ${dir} do not match the panel's context packs:\n  ${problems.join('\n  ')}`);
  return templates as PanelPromptTemplates;
}
