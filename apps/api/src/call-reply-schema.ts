import { agentJsonSchema, isAgentSchemaName } from '@roundtable/contracts';

const cache = new Map<string, Record<string, unknown>>();

/**
 * The JSON Schema a call's reply was held against, by its agent_calls.schema_name: the
 * contracts' zod schema through z.toJSONSchema (agentJsonSchema, the same document a provider
 * is given for structured output, so "the artifact or a request for files" is its one merged
 * object). null for a call with no schema name, or one this build does not know (a row written
 * by another version). Built once per name: the schemas are fixed for the life of the process.
 */
export function callReplySchema(schemaName: string | null): Record<string, unknown> | null {
  if (schemaName === null || !isAgentSchemaName(schemaName)) return null;
  let schema = cache.get(schemaName);
  if (!schema) {
    schema = agentJsonSchema(schemaName);
    cache.set(schemaName, schema);
  }
  return schema;
}
