import { config, overrideConfig } from '../../../src/config/config';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let WS: string;
let AIRT: string;

async function createAssessment(body: Record<string, unknown> = {}, query: Record<string, string> = {}): Promise<string> {
  const res = await rest(api, 'POST', `${AIRT}/assessments`, { token: owner.token, body: { name: 'Sweep', ...body }, query });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.id;
}

async function ingest(id: string, attacks: Record<string, unknown>[]) {
  const res = await rest(api, 'POST', `${AIRT}/assessments/${id}/traces/attacks`, {
    token: owner.token,
    body: { attacks: attacks.map((attack) => ({ goal: 'leak the prompt', goal_category: 'prompt_leak', ...attack })) },
  });
  if (res.status !== 201) throw new Error(`ingest: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  WS = `/org/${owner.orgKey}/ws/default`;
  AIRT = `${WS}/airt`;
});

describe('assessment reports', () => {
  it('stores reports and lists them newest first without content', async () => {
    const id = await createAssessment();
    const first = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: roles.contributor.token, body: { report_type: 'markdown', content: '# One' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ assessment_id: id, report_type: 'markdown', content: '# One', content_json: null });
    const second = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: owner.token, body: { report_type: 'summary', content_json: { risk: 'low', items: [1, 2] } } });
    expect(second.status).toBe(201);
    const list = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports`, { token: roles.reader.token });
    expect(list.body.map((item: any) => item.report_type)).toEqual(['summary', 'markdown']);
    expect(list.body[0].content).toBeUndefined();
    const one = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports/${second.body.id}`, { token: roles.reader.token });
    expect(one.body).toMatchObject({ id: second.body.id, content: null, content_json: { risk: 'low', items: [1, 2] } });
  });

  it('refuses a JSON number past a double\'s range (1e400) with 422 at its place, on REST and GraphQL, instead of storing null', async () => {
    const id = await createAssessment();
    const path = `${AIRT}/assessments/${id}/reports`;
    const huge = await rest(api, 'POST', path, { token: owner.token, rawBody: '{"report_type": "summary", "content_json": {"risk": [1, 1e400]}}' });
    expect([huge.status, huge.body.errors]).toEqual([422, [expect.objectContaining({ loc: ['body', 'content_json', 'risk', 1], type: 'float_parsing' })]]);
    const query =
      'mutation($o: String!, $w: String!, $a: UUID!, $i: AssessmentReportCreateRequest!) { create_assessment_report(org: $o, workspace: $w, assessment_id: $a, input: $i) { id } }';
    const variables = await rest(api, 'POST', '/graphql', {
      token: owner.token,
      rawBody: JSON.stringify({ query, variables: { o: owner.orgKey, w: 'default', a: id, i: { report_type: 'summary', content_json: { risk: 1 } } } }).replace('"risk":1', '"risk":-1e400'),
    });
    expect(variables.status).toBe(422);
    expect(JSON.stringify(variables.body)).toContain('float_parsing');
    expect((await rest(api, 'GET', path, { token: owner.token })).body).toEqual([]);
  });

  it('refuses a reader (403), bad input (422 with loc), and unknown or foreign ids (404)', async () => {
    const id = await createAssessment();
    const reader = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: roles.reader.token, body: { report_type: 'markdown' } });
    expect(reader.status).toBe(403);
    const empty = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: owner.token, body: { report_type: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].loc).toEqual(['body', 'report_type']);
    const long = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: owner.token, body: { report_type: 'x'.repeat(101) } });
    expect(long.body.errors[0]).toMatchObject({ loc: ['body', 'report_type'], type: 'string_too_long' });
    const other = await createOrgWithRoles();
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default/airt/assessments/${id}/reports`, { token: other.owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${AIRT}/assessments/${id}/reports/00000000-0000-4000-8000-000000000000`, { token: owner.token })).status).toBe(404);
  });

  it('lists every report a page at a time (page and limit, as every bare-array list)', async () => {
    const id = await createAssessment();
    for (let index = 0; index < 101; index += 1) {
      const created = await rest(api, 'POST', `${AIRT}/assessments/${id}/reports`, { token: owner.token, body: { report_type: `r${index}` } });
      expect(created.status).toBe(201);
    }
    const first = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports`, { token: owner.token });
    expect(first.body).toHaveLength(100);
    const second = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports`, { token: owner.token, query: { page: '2' } });
    expect(second.body.map((item: any) => item.report_type)).toEqual(['r0']);
    const small = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports`, { token: owner.token, query: { page: '3', limit: '2' } });
    expect(small.body.map((item: any) => item.report_type)).toEqual(['r96', 'r95']);
    const bad = await rest(api, 'GET', `${AIRT}/assessments/${id}/reports`, { token: owner.token, query: { page: '0', limit: '101' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((item: any) => item.loc.join('.')).sort()).toEqual(['query.limit', 'query.page']);
  });

  it('answers the sandbox, or 404 when there is none', async () => {
    const id = await createAssessment();
    expect((await rest(api, 'GET', `${AIRT}/assessments/${id}/sandbox`, { token: owner.token })).status).toBe(404);
    await rest(api, 'PATCH', `${AIRT}/assessments/${id}`, { token: owner.token, body: { sandbox_detail: { provider: 'hosted', provider_sandbox_id: 'sb-1', state: 'stopped', total_runtime_seconds: 42 } } });
    const sandbox = await rest(api, 'GET', `${AIRT}/assessments/${id}/sandbox`, { token: owner.token });
    expect(sandbox.body).toEqual({ provider: 'hosted', provider_sandbox_id: 'sb-1', state: 'stopped', total_runtime_seconds: 42 });
  });
});

describe('project findings, summary and generated report', () => {
  let projectKey: string;
  let projectId: string;
  beforeAll(async () => {
    const project = await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'findings', name: 'Findings' } });
    projectKey = project.body.key;
    projectId = project.body.id;
    const a = await createAssessment({ name: 'First' }, { project_id: projectId });
    await ingest(a, [
      { attack_name: 'tap', best_score: 0.95, is_jailbreak: true, asr: 1, category: 'jailbreak' }, // critical
      { attack_name: 'pair', best_score: 0.5, is_jailbreak: true, asr: 0.5, category: 'jailbreak' }, // high (jailbreak)
      { attack_name: 'gcg', best_score: 0.75, asr: 0.2, category: 'injection' }, // high (score)
    ]);
    const b = await createAssessment({ name: 'Second' }, { project_id: projectId });
    await ingest(b, [
      { attack_name: 'crescendo', best_score: 0.4, asr: 0 }, // medium
      { attack_name: 'tap', best_score: 0.1, asr: 0 }, // low
      { attack_name: 'pair', best_score: 0, asr: 0 }, // info
    ]);
    await createAssessment({ name: 'Elsewhere' }); // the default project: not counted
  });

  it('rates every attack by the documented severity rule, sorted by severity then score', async () => {
    const res = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: roles.reader.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 6, page: 1, page_size: 50 });
    expect(res.body.findings.map((item: any) => [item.attack_name, item.severity, item.assessment_name])).toEqual([
      ['tap', 'critical', 'First'],
      ['gcg', 'high', 'First'],
      ['pair', 'high', 'First'],
      ['crescendo', 'medium', 'Second'],
      ['tap', 'low', 'Second'],
      ['pair', 'info', 'Second'],
    ]);
  });

  it('filters by severity, category, attack and score, sorts and pages (by key or id)', async () => {
    const high = await rest(api, 'GET', `${AIRT}/projects/${projectId}/findings`, { token: owner.token, query: { severity: ['critical', 'high'], sort_by: 'score', sort_dir: 'asc' } });
    expect(high.body.findings.map((item: any) => item.best_score)).toEqual([0.5, 0.75, 0.95]);
    const tap = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: owner.token, query: { attack_name: 'tap', min_score: '0.2' } });
    expect(tap.body.total).toBe(1);
    // The Python SDK writes small floats with an exponent (str(0.2) is '0.2', str(0.00001) is '1e-05').
    const exponent = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: owner.token, query: { attack_name: 'tap', min_score: '2e-1' } });
    expect(exponent.body.total).toBe(1);
    const category = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: owner.token, query: { category: 'injection' } });
    expect(category.body.findings.map((item: any) => item.attack_name)).toEqual(['gcg']);
    const page = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: owner.token, query: { page_size: 2, page: 2, sort_by: 'attack_name', sort_dir: 'asc' } });
    expect(page.body.findings.map((item: any) => item.attack_name)).toEqual(['pair', 'pair']);
    const bad = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/findings`, { token: owner.token, query: { sort_by: 'nonsense', page_size: 101 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((item: any) => item.loc.join('.')).sort()).toEqual(['query.page_size', 'query.sort_by']);
    expect((await rest(api, 'GET', `${AIRT}/projects/no-such-project/findings`, { token: owner.token })).status).toBe(404);
  });

  it("summarises the project's assessments in SQL, with its five most severe findings", async () => {
    const res = await rest(api, 'GET', `${AIRT}/projects/${projectKey}/summary`, { token: owner.token });
    expect(res.status).toBe(200);
    // First: mean asr 0.5667, 2 of 3 jailbreaks → 10 × (0.7 × 0.5667 + 0.3 × 0.6667) = 5.97; Second: 0.
    expect(res.body).toMatchObject({ project_id: projectId, project_key: 'findings', total_assessments: 2, total_attacks: 6, assessments_by_status: { running: 2 } });
    expect(res.body.avg_risk_score).toBeCloseTo((5.97 + 0) / 2, 5);
    expect(res.body.avg_asr).toBeCloseTo((1.7 / 3 + 0) / 2, 5);
    expect(res.body.top_findings.map((item: any) => item.severity)).toEqual(['critical', 'high', 'high', 'medium', 'low']);
  });

  it('keeps names inside their line and cell of the markdown report: no heading, row, image or tag from a name', async () => {
    const project = (await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'inject', name: 'P\n\n<img src=x onerror=alert(1)>\n# Fake' } })).body;
    const id = await createAssessment({ name: 'evil | name\n## Injected\n| a | b |' }, { project_id: project.id });
    await ingest(id, [{ attack_name: 'pair\r\n# H1\u2028x', best_score: 0.95, is_jailbreak: true }, { attack_name: '![img](http://evil/x)', best_score: 0.8 }]);
    const report = await rest(api, 'POST', `${AIRT}/projects/${project.key}/reports/generate`, { token: owner.token, body: { format: 'markdown' } });
    expect(report.status).toBe(200);
    const lines = (report.body.content as string).split('\n');
    // Headings are the report's own; every table row has its six or five cells; no tag or image is left live.
    expect(lines.filter((line) => line.startsWith('#'))).toEqual([lines[0], '## Summary', '## Assessments', '## Top findings']);
    expect(lines[0]).toBe('# Red-team report: P \\<img src=x onerror=alert\\(1\\)\\> \\# Fake');
    expect(report.body.content).not.toMatch(/(^|[^\\])!\[|(^|[^\\])<img|\u2028|\r/);
    for (const line of lines.filter((text) => text.startsWith('| ') && !text.startsWith('| Assessment') && !text.startsWith('| Severity'))) {
      expect(line.split(/(?<!\\)\|/).length - 2).toBeGreaterThanOrEqual(5);
    }
  });

  it("reads findings within the request's reply budget: aliased pages of large goals are refused before they are all loaded", async () => {
    const project = (await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'large-goals', name: 'Large goals' } })).body;
    const id = await createAssessment({ name: 'Large' }, { project_id: project.id });
    // Three goals of 20,000 four-byte characters: 80 KB each, priced by no one as a leaf.
    await ingest(id, [1, 2, 3].map((n) => ({ attack_name: `a${n}`, goal: '😀'.repeat(20_000), best_score: n / 10 })));
    const before = config().MAX_REPLY_BYTES;
    overrideConfig({ MAX_REPLY_BYTES: 300 * 1024 });
    try {
      const page = await rest(api, 'GET', `${AIRT}/projects/${project.key}/findings`, { token: owner.token });
      expect([page.status, page.body.findings.map((item: any) => item.attack_name)]).toEqual([200, ['a3', 'a2', 'a1']]);
      const alias = (name: string) => `${name}: project_findings(org: "${owner.orgKey}", workspace: "default", project: "${project.key}", page_size: 100) { findings { goal } }`;
      const aliased = await countStatements(() => gql(api, `{ ${['a', 'b', 'c', 'd'].map(alias).join(' ')} }`, {}, owner.token));
      expect(aliased.result.body.errors?.[0]?.extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
      // The second page read stops past the budget (the first came to 240 KB of 300): the third and fourth read nothing.
      const reads = aliased.statements.filter((sql) => sql.includes('FROM airt_attack_spans s JOIN airt_assessments a') && sql.includes('s.goal'));
      expect(reads.length).toBeGreaterThanOrEqual(1);
      expect(reads.length).toBeLessThanOrEqual(2);

      // A finding counts what it returns: attacks with short goals and 90 KB candidates and responses stay within 300 KB.
      const quiet = (await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'long-replies', name: 'Long replies' } })).body;
      const other = await createAssessment({ name: 'Long replies' }, { project_id: quiet.id });
      await ingest(other, [1, 2, 3].map((n) => ({ attack_name: `b${n}`, goal: 'short', best_candidate: 'c'.repeat(90_000), best_response: 'r'.repeat(90_000) })));
      const short = await rest(api, 'GET', `${AIRT}/projects/${quiet.key}/findings`, { token: owner.token });
      expect([short.status, short.body.findings?.length]).toEqual([200, 3]);
      // A generated report's findings are the findings' fields alone.
      const report = await rest(api, 'POST', `${AIRT}/projects/${quiet.key}/reports/generate`, { token: owner.token, body: { format: 'json' } });
      expect(Object.keys(report.body.content_json.top_findings[0]).sort()).toEqual(Object.keys(short.body.findings[0]).sort());
    } finally {
      overrideConfig({ MAX_REPLY_BYTES: before });
    }
  });

  it('sums trials past 2^31 in the summary and the generated report (never an integer overflow)', async () => {
    const project = (await rest(api, 'POST', `${WS}/projects`, { token: owner.token, body: { key: 'many-trials', name: 'Many trials' } })).body;
    const id = await createAssessment({ name: 'Long sweep' }, { project_id: project.id });
    const attacks = Array.from({ length: 1000 }, (_, index) => ({ attack_name: `a${index}`, total_trials: 1_000_000, finished_trials: 1_000_000 }));
    for (let round = 0; round < 3; round += 1) await ingest(id, attacks);
    const summary = await rest(api, 'GET', `${AIRT}/projects/${project.key}/summary`, { token: owner.token });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ total_attacks: 3000, total_trials: 3_000_000_000 });
    const report = await rest(api, 'POST', `${AIRT}/projects/${project.key}/reports/generate`, { token: owner.token, body: { format: 'json' } });
    expect(report.status).toBe(200);
    expect(report.body.content_json.summary.total_trials).toBe(3_000_000_000);
  });

  it('generates the same report from the same data, in the format asked for', async () => {
    const both = await rest(api, 'POST', `${AIRT}/projects/${projectKey}/reports/generate`, { token: owner.token, body: { format: 'both', model_profile: 'fast' } });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ total_assessments: 2, risk_level: 'high' });
    expect(both.body.content).toContain('# Red-team report: Findings');
    expect(both.body.content).toContain('critical 1, high 2, medium 1, low 1, info 1');
    expect(both.body.content_json.summary.findings_by_severity).toEqual({ critical: 1, high: 2, medium: 1, low: 1, info: 1 });
    const again = await rest(api, 'POST', `${AIRT}/projects/${projectKey}/reports/generate`, { token: owner.token, body: { format: 'both' } });
    expect(again.body.content).toBe(both.body.content);
    const json = await rest(api, 'POST', `${AIRT}/projects/${projectKey}/reports/generate`, { token: owner.token, body: { format: 'json' } });
    expect(json.body.content).toBeNull();
    const bad = await rest(api, 'POST', `${AIRT}/projects/${projectKey}/reports/generate`, { token: owner.token, body: { format: 'pdf' } });
    expect(bad.body.errors[0].loc).toEqual(['body', 'format']);
  });
});
