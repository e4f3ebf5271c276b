import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPromptTemplates, CONTEXT_PLACEHOLDERS, renderMessages } from '@roundtable/workflow';
import { loadPromptTemplates } from './prompt-templates';

const PROMPTS = path.resolve(__dirname, '../../../prompts');

describe('the build prompt templates (boot)', () => {
  it("load the trading domain's rules from the experiment's own template, and pass the placeholder check", () => {
    const templates = loadPromptTemplates(PROMPTS);
    expect(templates.trading_rules).toBe(readFileSync(path.join(PROMPTS, 'experiment', 'trading_rules.md'), 'utf8'));
    expect(checkPromptTemplates(templates)).toEqual([]);
  });

  it('an empty domain_rules (a general build) leaves the proposer, critic and reviser prompts as they were: one blank line before "What to do"', () => {
    const templates = loadPromptTemplates(PROMPTS);
    for (const role of ['proposer', 'critic', 'reviser'] as const) {
      const values = Object.fromEntries(CONTEXT_PLACEHOLDERS[role].map((p) => [p, p === 'domain_rules' ? '' : `<${p}>`]));
      const text = renderMessages(templates, role, values)[1].content;
      expect(text).toMatch(/[^\n]\n\n## What to do\n/);
      expect(text).not.toContain('Trading');
    }
  });
});
