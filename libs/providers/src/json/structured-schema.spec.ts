import { agentJsonSchema, AGENT_SCHEMAS } from '@roundtable/contracts';
import { strictSchemaViolation } from '@roundtable/testing';
import { dropNullOptionals, plainJsonSchema, strictJsonSchema } from './structured-schema';

type S = Record<string, unknown>;

function objects(node: unknown, out: S[] = []): S[] {
  if (Array.isArray(node)) node.forEach((n) => objects(n, out));
  else if (node && typeof node === 'object') {
    const s = node as S;
    if (s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'))) out.push(s);
    Object.values(s).forEach((v) => objects(v, out));
  }
  return out;
}

describe('strictJsonSchema', () => {
  it.each(Object.keys(AGENT_SCHEMAS) as (keyof typeof AGENT_SCHEMAS)[])('closes every object of %s and requires every property', (name) => {
    const strict = strictJsonSchema(agentJsonSchema(name));
    expect(strictSchemaViolation(strict)).toBeNull();
    const objs = objects(strict);
    expect(objs.length).toBeGreaterThan(0);
    for (const o of objs) {
      expect(o.additionalProperties).toBe(false);
      expect([...(o.required as string[])].sort()).toEqual(Object.keys(o.properties as S).sort());
    }
    expect(JSON.stringify(strict)).not.toMatch(/"\$schema"|"minLength"|"default"/);
  });

  it('makes optional properties nullable and leaves required ones alone', () => {
    const strict = strictJsonSchema(agentJsonSchema('Proposal')) as { properties: Record<string, S> };
    expect(strict.properties.responses_to_criticism.type).toEqual(['array', 'null']);
    expect(strict.properties.revision_of.type).toEqual(['string', 'null']);
    expect(strict.properties.claim.type).toBe('string');
    // the original is not modified
    expect((agentJsonSchema('Proposal') as { required: string[] }).required).not.toContain('responses_to_criticism');
  });

  it('adds null to an enum made nullable, and wraps a $ref', () => {
    const s = strictJsonSchema({
      type: 'object',
      properties: { level: { type: 'string', enum: ['a', 'b'] }, thing: { $ref: '#/$defs/T' } },
      $defs: { T: { type: 'object', properties: { x: { type: 'number' } } } },
    }) as { properties: Record<string, S>; $defs: Record<string, S> };
    expect(s.properties.level).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(s.properties.thing).toEqual({ anyOf: [{ $ref: '#/$defs/T' }, { type: 'null' }] });
    expect(s.$defs.T).toMatchObject({ additionalProperties: false, required: ['x'] });
  });
});

describe('dropNullOptionals', () => {
  it('turns nulls on optional, non-nullable properties back into absences, recursively', () => {
    const schema = agentJsonSchema('Proposal');
    const reply = {
      proposal_id: 'P2',
      revision_of: null,
      claim: 'c',
      responses_to_criticism: null,
      nested: null,
    };
    expect(dropNullOptionals(reply, schema)).toEqual({ proposal_id: 'P2', revision_of: null, claim: 'c', nested: null });
    const critique = agentJsonSchema('Critique');
    const c = dropNullOptionals({ problems: [{ severity: 'major', description: 'd', location: null }] }, critique);
    expect(c).toEqual({ problems: [{ severity: 'major', description: 'd', location: null }] });
  });

  it('lets zod defaults apply after the round trip', () => {
    const impl = dropNullOptionals(
      { proposal_id: 'P1', files: [{ path: 'a.py', content: '' }], test_command: null, notes: '', assumptions: [], known_gaps: [] },
      agentJsonSchema('Implementation'),
    );
    expect(AGENT_SCHEMAS.Implementation.parse(impl).test_command).toBe('python -m pytest -q');
  });
});

it('plainJsonSchema drops only the dialect marker', () => {
  const s = agentJsonSchema('Critique');
  const plain = plainJsonSchema(s);
  expect(plain.$schema).toBeUndefined();
  expect(plain.properties).toEqual(s.properties);
});
