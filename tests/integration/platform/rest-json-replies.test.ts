import { print } from 'graphql';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { database } from '../../../src/db/database';
import { createRestRouter, type RestPlan } from '../../../src/rest';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Routes whose REST reply PostgreSQL builds (@RestJson) skip GraphQL
 * execution, so nothing but this file keeps them equal to it: each one's
 * reply must equal the data of executing the route's own document through
 * /graphql, on data that covers every shape of its type.
 */
const api = useTestApp();
let owner: TestUser;
let plans: Map<string, RestPlan>;

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
  plans = createRestRouter(api.app.schema).plans;
});

/** The route's reply beside its document run through GraphQL with the same arguments. */
async function bothWays(key: string, path: string, variables: Record<string, unknown>, query: Record<string, string | number> = {}) {
  const plan = plans.get(key)!;
  const viaRest = await rest(api, 'GET', path, { token: owner.token, query });
  const viaGraphql = await gql(api, print(plan.document), { ...variables, ...query }, owner.token);
  expect(viaRest.status).toBe(200);
  expect(viaGraphql.body.errors).toBeUndefined();
  return { rest: viaRest.body, graphql: viaGraphql.body.data![plan.fieldName] };
}

it('lists every route that has a PostgreSQL-built reply; each has a comparison below', () => {
  expect([...plans.values()].filter((plan) => plan.json).map((plan) => `${plan.kind}.${plan.fieldName}`)).toEqual(['Query.assessment_attacks']);
});

describe('Query.assessment_attacks (GET …/traces/attacks)', () => {
  const spans = [
    { attack_name: 'pair', goal: 'g', goal_category: 'prompt_leak' },
    {
      attack_name: 'tap',
      goal: 'leak "the" prompt\n\t\u0001 ünïcødé 🚀',
      goal_category: 'harm',
      asr: 0.1,
      attacker_model: 'a',
      target_model: 't',
      evaluator_model: 'e',
      best_candidate: 'c',
      best_candidate_parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'image', caption: 'cap', transform: 'base64', variant: 'v', source: { url: 'https://example.test/a.png', media_type: 'image/png' } },
        { kind: 'file', source: { ref: 'file_id', file_id: 'f-1', filename: 'a.txt', byte_size: 2147483647, detail: 'd', artifact_oid: 'oid' } },
        { kind: 'audio', source: {} },
      ],
      best_response: 'r',
      best_response_parts: [],
      best_modality_scores: { text: 0.25, image: 1e-7, audio: 3 },
      best_score: 9.75,
      category: 'jailbreak',
      sub_category: 'roleplay',
      execution_time_s: 12345.678,
      finished_trials: 3,
      total_trials: 1000000,
      is_jailbreak: true,
      span_id: 's',
      trace_id: 't',
      transforms: ['base64', 'leet'],
    },
    { attack_name: 'crescendo', goal: 'g3', goal_category: 'harm', asr: 1, best_score: 1e-9, execution_time_s: 0.30000000000000004, best_candidate_parts: [{ kind: 'text', text: null }] },
  ];

  it('equals executing the route’s document, for stored reply texts and for spans built on the fly', async () => {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const created = await rest(api, 'POST', base, { token: owner.token, body: { name: 'shapes' } });
    const id = created.body.id as string;
    const ingested = await rest(api, 'POST', `${base}/${id}/traces/attacks`, { token: owner.token, body: { attacks: spans } });
    expect([ingested.status, ingested.body.errors]).toEqual([201, undefined]);
    const path = `${base}/${id}/traces/attacks`;
    const variables = { org: owner.orgKey, workspace: 'default', assessment_id: id };

    const stored = await bothWays('Query.assessment_attacks', path, variables);
    expect(stored.rest).toHaveLength(3);
    expect(stored.rest).toEqual(stored.graphql);
    expect(stored.rest[1].best_candidate_parts[2].source).toEqual({
      ref: 'file_id', artifact_oid: 'oid', byte_size: 2147483647, detail: 'd', file_id: 'f-1', filename: 'a.txt', media_type: null, url: null,
    });
    expect((await bothWays('Query.assessment_attacks', path, variables, { limit: 1, offset: 1 })).rest).toEqual([stored.rest[1]]);
    expect((await bothWays('Query.assessment_attacks', path, variables, { offset: 3 })).rest).toEqual([]);

    // Spans ingested before reply texts were stored (migration 0041 fills them; a missing one is built on the fly).
    await database().query(`UPDATE airt_attack_spans SET reply_json = NULL WHERE assessment_id = $id AND seq <> 2`, { bind: { id } });
    const onTheFly = await bothWays('Query.assessment_attacks', path, variables);
    expect(onTheFly.rest).toEqual(onTheFly.graphql);
    expect(onTheFly.rest).toEqual(stored.rest);
  });

  it('still checks the query parameters’ rules (422 with every problem)', async () => {
    const path = `/org/${owner.orgKey}/ws/default/airt/assessments/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/traces/attacks`;
    const res = await rest(api, 'GET', path, { token: owner.token, query: { limit: 0, offset: -1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((item: { loc: string[] }) => item.loc.join('.')).sort()).toEqual(['query.limit', 'query.offset']);
  });
});
