/** What a call's prompt is built from: the template's values, and the rows they came from. */
export interface ContextPack {
  values: Record<string, string>;
  /** Labels of the rows the prompt was built from (agent_calls.context_refs). */
  contextRefs: string[];
}
