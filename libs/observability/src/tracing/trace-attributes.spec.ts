import * as ours from './trace-attributes';

// required, not imported: tsc's moduleResolution (node10) does not read the package's `exports`, which is where the subpath lives.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const incubating = require('@opentelemetry/semantic-conventions/incubating') as Record<string, unknown>;

// The incubating names are copied (trace-attributes.ts says why); this holds each copy to the pinned package.
describe('trace attribute names copied from the incubating semantic conventions', () => {
  const copied = [
    'ATTR_GEN_AI_OPERATION_NAME',
    'GEN_AI_OPERATION_NAME_VALUE_CHAT',
    'ATTR_GEN_AI_PROVIDER_NAME',
    'ATTR_GEN_AI_REQUEST_MODEL',
    'ATTR_GEN_AI_RESPONSE_ID',
    'ATTR_GEN_AI_USAGE_INPUT_TOKENS',
    'ATTR_GEN_AI_USAGE_OUTPUT_TOKENS',
    'ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS',
    'ATTR_GEN_AI_AGENT_NAME',
    'ATTR_MESSAGING_SYSTEM',
    'ATTR_MESSAGING_DESTINATION_NAME',
    'ATTR_MESSAGING_MESSAGE_ID',
  ] as const;

  it.each(copied)('%s is the package value', (name) => {
    expect(ours[name]).toBe(incubating[name]);
  });
});
