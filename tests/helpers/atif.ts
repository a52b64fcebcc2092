import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * An ATIF v1.7 trajectory as Harbor's own models check it (RFC 0001;
 * harbor.models.trajectories): the fields of each model, required ones and
 * `extra: forbid` (no other field) as JSON Schema, plus the model
 * validators (step ids 1, 2, 3…; agent-only fields on agent steps;
 * observations answering calls of their own step). "Valid ATIF" is checked,
 * not assumed.
 */
const text = { type: 'string' };
const count = { type: 'integer', minimum: 0 };
const object = { type: 'object' };
const closed = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });

const metrics = closed({
  prompt_tokens: count,
  completion_tokens: count,
  cached_tokens: count,
  cost_usd: { type: 'number', minimum: 0 },
  prompt_token_ids: { type: 'array', items: { type: 'integer' } },
  completion_token_ids: { type: 'array', items: { type: 'integer' } },
  logprobs: { type: 'array', items: { type: 'number' } },
  extra: object,
});
const content = { anyOf: [text, { type: 'array', items: object }, { type: 'null' }] };
const step = closed(
  {
    step_id: { type: 'integer', minimum: 1 },
    timestamp: { type: 'string', format: 'date-time' },
    source: { enum: ['system', 'user', 'agent'] },
    model_name: text,
    reasoning_effort: { anyOf: [text, { type: 'number' }] },
    message: content,
    reasoning_content: text,
    tool_calls: { type: 'array', items: closed({ tool_call_id: text, function_name: text, arguments: object, extra: object }, ['tool_call_id', 'function_name', 'arguments']) },
    observation: closed({ results: { type: 'array', items: closed({ source_call_id: text, content, subagent_trajectory_ref: {}, extra: object }) } }, ['results']),
    metrics,
    is_copied_context: { type: 'boolean' },
    llm_call_count: count,
    extra: object,
  },
  ['step_id', 'source', 'message'],
);
const trajectory = closed(
  {
    schema_version: { enum: ['ATIF-v1.7'] },
    session_id: text,
    trajectory_id: text,
    agent: closed({ name: text, version: text, model_name: text, tool_definitions: { type: 'array', items: object }, extra: object }, ['name', 'version']),
    steps: { type: 'array', minItems: 1, items: step },
    notes: text,
    final_metrics: closed({
      total_prompt_tokens: count,
      total_completion_tokens: count,
      total_cached_tokens: count,
      total_cost_usd: { type: 'number', minimum: 0 },
      total_steps: count,
      extra: object,
    }),
    continued_trajectory_ref: text,
    extra: object,
  },
  ['schema_version', 'agent', 'steps'],
);

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(trajectory);

/** Every way `value` is not a valid ATIF v1.7 trajectory (none: valid). */
export function atifProblems(value: any): string[] {
  if (!validate(structuredClone(value))) return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
  const problems: string[] = [];
  value.steps.forEach((item: any, index: number) => {
    if (item.step_id !== index + 1) problems.push(`steps/${index}: step_id ${item.step_id}, expected ${index + 1}`);
    for (const field of ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics']) {
      if (item.source !== 'agent' && item[field] !== undefined) problems.push(`steps/${index}: ${field} on a ${item.source} step`);
    }
    const calls = new Set((item.tool_calls ?? []).map((call: any) => call.tool_call_id));
    for (const result of item.observation?.results ?? []) {
      if (result.source_call_id !== undefined && !calls.has(result.source_call_id)) problems.push(`steps/${index}: observation of unknown call ${result.source_call_id}`);
    }
  });
  if (value.final_metrics && value.final_metrics.total_steps !== value.steps.length) problems.push('final_metrics.total_steps');
  return problems;
}
