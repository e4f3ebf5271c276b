import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BuildRole } from '@roundtable/contracts';
import { checkPromptTemplates, type PromptTemplates } from '@roundtable/workflow';

/** prompts/ sits at the repository root; the bundle lives three levels below it. */
export function defaultPromptsDir(): string {
  const candidates = [path.resolve(__dirname, '../../../prompts'), path.resolve(process.cwd(), 'prompts')];
  return candidates.find((d) => existsSync(path.join(d, 'preamble.md'))) ?? candidates[0];
}

/** Read once at start: a missing template stops the service, not a run midway. */
export function loadPromptTemplates(dir: string): PromptTemplates {
  const read = (name: string) => {
    const file = path.join(dir, `${name}.md`);
    if (!existsSync(file)) throw new Error(`prompt template ${file} is missing (PROMPTS_DIR=${dir})`);
    return readFileSync(file, 'utf8');
  };
  const templates = { preamble: read('preamble') } as PromptTemplates;
  for (const role of BuildRole.options) templates[role] = read(role);
  // The trading domain's rules (issue 24): one template, shared with the experiment workflow.
  templates.trading_rules = read(path.join('experiment', 'trading_rules'));
  const problems = checkPromptTemplates(templates);
  if (problems.length) throw new Error(`prompt templates in ${dir} do not match the context packs:\n  ${problems.join('\n  ')}`);
  return templates;
}
