import { z } from 'zod';
import { AGENT_SCHEMAS, AgentSchemaName, agentJsonSchema, formatZodIssues, isAgentSchemaName } from './agent-schemas';

const names = Object.keys(AGENT_SCHEMAS) as AgentSchemaName[];

describe('AGENT_SCHEMAS', () => {
  it('holds the schemas an agent may be asked for: the build\'s five, the file request and its three "or" forms, the trading critique (and its "or" form), the engineer\'s tool turn (with and without run_tests), and the panel\'s four', () => {
    expect(names.sort()).toEqual([
      'Critique',
      'CritiqueOrFilesRequested',
      'CritiqueWithChecklist',
      'CritiqueWithChecklistOrFilesRequested',
      'DebateTurn',
      'EngineerTurn',
      'EngineerTurnWithTests',
      'FilesRequested',
      'Implementation',
      'ImplementationOrFilesRequested',
      'Interpretation',
      'InterpretationReview',
      'JudgeVerdict',
      'ModeratorSynthesis',
      'Preregistration',
      'Proposal',
      'Review',
      'ReviewOrFilesRequested',
      'Revote',
      'Synthesis',
      'TradingInterpretation',
      'TradingInterpretationReview',
    ]);
    expect(AgentSchemaName.options.sort()).toEqual(names);
  });

  it('isAgentSchemaName knows them and nothing inherited', () => {
    expect(isAgentSchemaName('Critique')).toBe(true);
    expect(isAgentSchemaName('TestResult')).toBe(false);
    expect(isAgentSchemaName('toString')).toBe(false);
    expect(isAgentSchemaName('constructor')).toBe(false);
  });
});

describe('agentJsonSchema', () => {
  it.each(names)('%s is an object schema whose properties match the zod shape', (name) => {
    const js = agentJsonSchema(name);
    expect(js.type).toBe('object');
    const schema = AGENT_SCHEMAS[name] as unknown as z.ZodObject | z.ZodUnion<z.ZodObject[]>;
    // A union ("the artifact, or a request for files") is offered as one object with every field of both.
    const shapes = schema instanceof z.ZodUnion ? schema.options.map((o) => o.shape) : [schema.shape];
    const keys = [...new Set(shapes.flatMap((s) => Object.keys(s)))];
    expect(Object.keys(js.properties as object).sort()).toEqual(keys.sort());
    expect(Array.isArray(js.required)).toBe(true);
    expect(JSON.parse(JSON.stringify(js))).toEqual(js);
  });

  it('describes input, so a defaulted field is not required of the model', () => {
    expect(agentJsonSchema('Implementation').required).not.toContain('test_command');
    expect(agentJsonSchema('Implementation').required).toContain('files');
    expect(agentJsonSchema('Proposal').required).not.toContain('responses_to_criticism');
    expect(agentJsonSchema('Critique').required).toEqual(
      expect.arrayContaining(['proposal_id', 'verdict', 'problems', 'counterarguments', 'tests_required', 'confidence']),
    );
  });

  it('carries the enums and bounds a provider can enforce', () => {
    const props = agentJsonSchema('Critique').properties as Record<string, Record<string, unknown>>;
    expect(props.verdict.enum).toEqual(['ACCEPT', 'REVISE', 'REJECT', 'NEEDS_EVIDENCE', 'NEEDS_EXPERIMENT']);
    expect(props.confidence).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
  });
});

describe('formatZodIssues', () => {
  it('names every failing path, dotted, one per issue', () => {
    const r = AGENT_SCHEMAS.Critique.safeParse({
      proposal_id: 'P1',
      verdict: 'REJECT',
      problems: [{ severity: 'huge', description: 'x' }],
      counterarguments: [],
      tests_required: [],
      confidence: 2,
    });
    expect(r.success).toBe(false);
    const text = formatZodIssues(r.error!);
    expect(text).toContain('problems.0.severity: ');
    expect(text).toContain('confidence: confidence must be in [0,1]');
    expect(text.split('; ')).toHaveLength(r.error!.issues.length);
  });

  it('says (root) for an issue on the whole value', () => {
    const r = AGENT_SCHEMAS.Review.safeParse('not an object');
    expect(formatZodIssues(r.error!)).toMatch(/^\(root\): /);
  });
});
