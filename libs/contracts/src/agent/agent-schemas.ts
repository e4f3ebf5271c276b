import { z } from 'zod';
import { Critique } from './critique.schema';
import { Implementation } from './implementation.schema';
import { Proposal } from './proposal.schema';
import { Review } from './review.schema';
import { Synthesis } from './synthesis.schema';
import { DebateTurn } from '../panel/debate-turn.schema';
import { JudgeVerdict } from '../panel/judge-verdict.schema';
import { ModeratorSynthesis } from '../panel/moderator-synthesis.schema';
import { Revote } from '../panel/revote.schema';

/**
 * The schemas an agent reply can be validated against, by the name stored in
 * agent_calls.schema_name. The provider-worker validates by this name only.
 */
export const AGENT_SCHEMAS = {
  Proposal,
  Critique,
  Implementation,
  Review,
  Synthesis,
  // The panel workflow's replies (seed 003).
  JudgeVerdict,
  DebateTurn,
  Revote,
  ModeratorSynthesis,
} as const;
export type AgentSchemaName = keyof typeof AGENT_SCHEMAS;
export const AgentSchemaName = z.enum(Object.keys(AGENT_SCHEMAS) as [AgentSchemaName, ...AgentSchemaName[]]);

export function isAgentSchemaName(name: string): name is AgentSchemaName {
  return Object.prototype.hasOwnProperty.call(AGENT_SCHEMAS, name);
}

/** A readable one-line-per-issue account of why a reply failed its schema (for the repair call). */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

export function agentJsonSchema(name: AgentSchemaName): Record<string, unknown> {
  return z.toJSONSchema(AGENT_SCHEMAS[name], { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
