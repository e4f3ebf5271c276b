import { agentJsonSchemaText, criteriaOf, type AgentSchemaName, type Domain, type ExperimentRole, type Preregistration } from '@roundtable/contracts';
import type { ChatMessage } from '../engine/call-types';
import { evidenceBlock } from '../evidence-block';
import { renderTemplate, templatePlaceholders } from '../prompt-render';
import type { ExperimentCallKind, ExperimentPromptTemplates, ExperimentRunState, ExperimentTemplateName } from './experiment-types';

/**
 * What each role of an experiment sees. The proposer: what the experiment must settle and the
 * domain's rules. The interpreter: the locked preregistration, the criteria, the metrics and the
 * end of the output. The critic: the same and the reading, without who wrote it (author-blind).
 * Everything a model or a command wrote is an evidence block: data, never instructions.
 */

/** Each template's placeholders, exactly: checkExperimentTemplates holds the files to them at boot. */
export const EXPERIMENT_PLACEHOLDERS: Readonly<Record<ExperimentTemplateName, readonly string[]>> = {
  preamble: ['role'],
  proposer: ['draft_from', 'domain', 'domain_rules', 'schema'],
  interpreter: ['preregistration', 'criteria', 'metrics', 'output', 'domain_rules', 'halt', 'schema'],
  critic: ['preregistration', 'criteria', 'metrics', 'output', 'reading', 'domain_rules', 'schema'],
  trading_rules: [],
};

/** Problems with a set of templates (missing, empty, a placeholder no pack fills or one left out); empty when they fit. */
export function checkExperimentTemplates(templates: Partial<ExperimentPromptTemplates>): string[] {
  return (Object.keys(EXPERIMENT_PLACEHOLDERS) as ExperimentTemplateName[]).flatMap((name) => {
    const text = templates[name];
    if (!text?.trim()) return [`${name}: missing or empty`];
    const expected = EXPERIMENT_PLACEHOLDERS[name];
    const used = templatePlaceholders(text);
    return [
      ...used.filter((p) => !expected.includes(p)).map((p) => `${name}: {{${p}}} is filled by no context pack`),
      ...expected.filter((p) => !used.includes(p)).map((p) => `${name}: {{${p}}} is never used`),
    ];
  });
}

/** The reply schema of a call: the trading domain's carry the fifteen-item checklist. */
export function schemaOf(kind: ExperimentCallKind, domain: Domain): AgentSchemaName {
  if (kind === 'draft') return 'Preregistration';
  if (kind === 'interpret') return domain === 'trading' ? 'TradingInterpretation' : 'Interpretation';
  return domain === 'trading' ? 'TradingInterpretationReview' : 'InterpretationReview';
}

const WHO: Record<ExperimentRole, string> = {
  proposer: 'proposer drafting an experiment preregistration',
  interpreter: "interpreter of a preregistered experiment's result",
  critic: "critic reviewing a reading of a preregistered experiment's result",
};

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** The domain the run works in: the preregistration's, or (for a draft) the file's. */
export function domainOf(state: ExperimentRunState): Domain {
  return state.preregistration?.domain ?? state.config.domain ?? 'general';
}

function domainRules(templates: ExperimentPromptTemplates, domain: Domain): string {
  return domain === 'trading' ? templates.trading_rules : '';
}

function criteriaText(prereg: Preregistration): string {
  return criteriaOf(prereg)
    .map((c) => `- ${c.id} (${c.kind}): \`${c.expr}\`${c.note ? ` — ${c.note}` : ''}`)
    .join('\n');
}

function resultValues(state: ExperimentRunState): Record<string, string> {
  const prereg = state.preregistration!;
  const result = state.result!;
  return {
    preregistration: evidenceBlock('PREREG', 'preregistration', json(prereg)),
    criteria: criteriaText(prereg),
    metrics: evidenceBlock('METRICS', 'metrics_from_the_command', json(result.metrics)),
    output: evidenceBlock('OUTPUT', 'command_output_tail', result.output_tail || '(no output)'),
  };
}

/** The prompt of a call of `kind`, rendered from the state. */
export function messagesFor(templates: ExperimentPromptTemplates, state: ExperimentRunState, kind: ExperimentCallKind): { role: ExperimentRole; messages: ChatMessage[]; refs: string[] } {
  const domain = domainOf(state);
  const schema = agentJsonSchemaText(schemaOf(kind, domain));
  const system = (role: ExperimentRole): ChatMessage => ({ role: 'system', content: renderTemplate(templates.preamble, { role: WHO[role] }) });
  if (kind === 'draft') {
    const values = { draft_from: evidenceBlock('SOURCE', 'what_the_experiment_must_settle', state.config.draft_from ?? ''), domain, domain_rules: domainRules(templates, domain), schema };
    return { role: 'proposer', messages: [system('proposer'), { role: 'user', content: renderTemplate(templates.proposer, values) }], refs: [] };
  }
  const base = { ...resultValues(state), domain_rules: domainRules(templates, domain), schema };
  if (kind === 'interpret') {
    const halt = state.haltReason ? `## Halt\nThe run halted (${state.haltReason}); yours is the one call after it. Read what is above.` : '';
    return { role: 'interpreter', messages: [system('interpreter'), { role: 'user', content: renderTemplate(templates.interpreter, { ...base, halt }) }], refs: ['RESULT'] };
  }
  // The reading without its author: no label, provider or model, only what it says.
  const reading = evidenceBlock('READING', 'reading_under_review', json(state.interpretation!.body));
  return { role: 'critic', messages: [system('critic'), { role: 'user', content: renderTemplate(templates.critic, { ...base, reading }) }], refs: [state.interpretation!.label] };
}
