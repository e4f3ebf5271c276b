import { z } from 'zod';
import { Critique, CritiqueWithChecklist } from './critique.schema';
import { FilesRequested, orFilesRequested } from './files-requested.schema';
import { AgentModeReport, Implementation } from './implementation.schema';
import { Proposal } from './proposal.schema';
import { Review } from './review.schema';
import { Synthesis } from './synthesis.schema';
import { engineerTools } from './engineer-tools';
import { ToolTurn, type ToolSpec } from './tool-call.schema';
import { DebateTurn } from '../panel/debate-turn.schema';
import { JudgeVerdict } from '../panel/judge-verdict.schema';
import { ModeratorSynthesis } from '../panel/moderator-synthesis.schema';
import { Revote } from '../panel/revote.schema';
import { Preregistration } from '../experiment/preregistration.schema';
import {
  Interpretation,
  InterpretationReview,
  TradingInterpretation,
  TradingInterpretationReview,
} from '../experiment/interpretation.schema';

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
  // Reading before writing: the artifact, or a request to read files first (issue 4).
  FilesRequested,
  CritiqueOrFilesRequested: orFilesRequested(Critique),
  ImplementationOrFilesRequested: orFilesRequested(Implementation),
  ReviewOrFilesRequested: orFilesRequested(Review),
  // A trading build's critic (issue 24, `domain: trading`): the critique with its fifteen-item checklist.
  CritiqueWithChecklist,
  CritiqueWithChecklistOrFilesRequested: orFilesRequested(CritiqueWithChecklist),
  // The engineer on an API provider in agent mode: one turn of its tool loop (with or without run_tests).
  EngineerTurn: ToolTurn,
  EngineerTurnWithTests: ToolTurn,
  // The panel workflow's replies (seed 003).
  JudgeVerdict,
  DebateTurn,
  Revote,
  ModeratorSynthesis,
  // The experiment workflow's replies (issue 24).
  Preregistration,
  Interpretation,
  InterpretationReview,
  TradingInterpretation,
  TradingInterpretationReview,
} as const;
export type AgentSchemaName = keyof typeof AGENT_SCHEMAS;
export const AgentSchemaName = z.enum(Object.keys(AGENT_SCHEMAS) as [AgentSchemaName, ...AgentSchemaName[]]);

export function isAgentSchemaName(name: string): name is AgentSchemaName {
  return Object.prototype.hasOwnProperty.call(AGENT_SCHEMAS, name);
}

/**
 * The tools a call under this schema is offered (a tool loop's turn), or undefined: the call
 * answers with JSON. The provider-worker reads them here, so a call row names its tools by its
 * schema alone.
 */
export function toolsOfSchema(name: AgentSchemaName): ToolSpec[] | undefined {
  if (name === 'EngineerTurn') return engineerTools(false);
  if (name === 'EngineerTurnWithTests') return engineerTools(true);
  return undefined;
}

/** A readable one-line-per-issue account of why a reply failed its schema (for the repair call). */
export function formatZodIssues(error: z.ZodError): string {
  return describeIssues(error.issues, []).join('; ');
}

/**
 * A failed union ("the artifact, or a request for files") says only "Invalid input"; the
 * repair call needs the reasons of the branch the reply was closest to: the one with the
 * fewest issues, the artifact on a tie (it is listed first).
 */
function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): string[] {
  return issues.flatMap((i) => {
    const path = [...prefix, ...i.path];
    if (i.code === 'invalid_union' && i.errors.length > 0) {
      const closest = i.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
      return describeIssues(closest, path);
    }
    return [`${path.length ? path.map(String).join('.') : '(root)'}: ${i.message}`];
  });
}

export function agentJsonSchema(name: AgentSchemaName): Record<string, unknown> {
  const schema = AGENT_SCHEMAS[name];
  if (schema instanceof z.ZodUnion) return mergedObjectSchema(name, schema.options as readonly z.ZodType[]);
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * agentJsonSchema(name) as JSON text, as a prompt's {{schema}} shows it. Memoised: the answer
 * depends on the schema alone, and converting a zod schema to JSON Schema on every prompt cost
 * more CPU than the rest of a panel pack.
 */
const schemaTextByName = new Map<AgentSchemaName, string>();
export function agentJsonSchemaText(name: AgentSchemaName): string {
  let text = schemaTextByName.get(name);
  if (text === undefined) schemaTextByName.set(name, (text = JSON.stringify(agentJsonSchema(name))));
  return text;
}

/**
 * "The artifact, or a request for files" as one object schema: structured-output APIs
 * (OpenAI strict mode, Anthropic tool input, Gemini) want an object at the root, not anyOf.
 * Every property of either shape is offered and none is required; the zod union decides
 * afterwards which one the reply is, and the prompt says how to choose.
 */
function mergedObjectSchema(name: string, options: readonly z.ZodType[]): Record<string, unknown> {
  const parts = options.map((o) => z.toJSONSchema(o, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
  const properties = Object.assign({}, ...parts.map((p) => p.properties ?? {})) as Record<string, unknown>;
  return {
    $schema: parts[0].$schema,
    type: 'object',
    description: `${name}: either the whole artifact, or only {"paths": [...], "reason": "..."} to read files first`,
    properties,
    required: [],
    additionalProperties: false,
  };
}

/** What an agent-mode engineer is asked to reply with (the CLI enforces it as its JSON schema). */
export function agentModeReportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(AgentModeReport, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
