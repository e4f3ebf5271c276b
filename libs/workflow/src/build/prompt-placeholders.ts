import type { BuildRole } from '@roundtable/contracts';
import { renderTemplate, templatePlaceholders } from '../prompt-render';
import type { ChatMessage, PromptTemplates } from './build-types';

const VALIDATOR_PLACEHOLDERS = [
  'objective',
  'requirements',
  'acceptance_criteria',
  'files',
  'diff',
  'test_result',
  'implementation_id',
  'file_tree',
  'reading',
  'schema',
] as const;

/** The placeholders each pack fills; a prompt template may use any subset of them. */
export const CONTEXT_PLACEHOLDERS: Readonly<Record<keyof PromptTemplates, readonly string[]>> = {
  preamble: ['role'],
  // domain_rules: the domain's rules (issue 24), filled by build-calls.ts for these three; empty in a general build.
  proposer: ['objective', 'requirements', 'lessons', 'proposal_id', 'domain_rules', 'schema'],
  critic: ['objective', 'requirements', 'answers', 'proposal', 'proposal_id', 'file_tree', 'reading', 'domain_rules', 'schema'],
  reviser: ['objective', 'requirements', 'answers', 'proposal', 'critique', 'proposal_id', 'revision_of', 'domain_rules', 'schema'],
  engineer: [
    'objective',
    'requirements',
    'answers',
    'proposal',
    'proposal_id',
    'acceptance_criteria',
    'open_criticisms',
    'file_tree',
    'files',
    'previous_attempt',
    'reading',
    'deliver',
    'schema',
  ],
  validator: VALIDATOR_PLACEHOLDERS,
  // The second review fills the validator's pack (context-packs.ts validatorPack).
  reviewer: VALIDATOR_PLACEHOLDERS,
  synthesizer: [
    'objective',
    'requirements',
    'proposals',
    'critiques',
    'reviews',
    'second_reviews',
    'implementation',
    'test_results',
    'budget',
    'halt',
    'unresolved_criticisms',
    'acceptance_criteria',
    'diff',
    'schema',
  ],
  // A section, not a prompt: put in domain_rules of a trading build's proposer, critic and reviser.
  trading_rules: [],
};

/** Placeholders a template uses that its pack never fills: check once at boot, not mid-run. */
export function checkPromptTemplates(templates: PromptTemplates): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(CONTEXT_PLACEHOLDERS) as (keyof PromptTemplates)[]) {
    const template = templates[name];
    if (typeof template !== 'string' || template.trim() === '') {
      problems.push(`prompt ${name} is missing or empty`);
      continue;
    }
    for (const p of templatePlaceholders(template)) {
      if (!CONTEXT_PLACEHOLDERS[name].includes(p)) problems.push(`prompt ${name} uses {{${p}}}, which the ${name} pack does not provide`);
    }
  }
  return problems;
}

export function renderMessages(templates: Pick<PromptTemplates, 'preamble' | BuildRole>, role: BuildRole, values: Record<string, string>): ChatMessage[] {
  return [
    { role: 'system', content: renderTemplate(templates.preamble, { role }) },
    { role: 'user', content: renderTemplate(templates[role], values) },
  ];
}
