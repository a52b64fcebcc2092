import crypto from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { sessionWhere } from '../src/modules/sessions/sessions.sql';
import { toFacets, type FacetRow } from '../src/modules/sessions/session-facets.service';
import { FACET_COUNTS_SQL } from '../src/modules/sessions/facet-counts';

/**
 * The yardstick of `npm run bench -- requests`: a minimal node:http + pg
 * server that does the same work as the service for the measured requests,
 * honestly and with the fewest statements: the API key with its user,
 * organization, membership and workspace in one named statement, then one
 * statement with joins (two for a page: count and rows). No GraphQL, no
 * validation layer, no logging, no metrics. It also answers an assessment's
 * analytics and attack list, the floor for `npm run bench -- assessments`.
 */
const AUTH_SQL = `
  SELECT k.organization_id AS key_org, k.workspace_id AS key_ws, u.id AS user_id, u.is_suspended,
         o.id AS org_id, m.role, w.id AS workspace_id
    FROM api_keys k JOIN users u ON u.id = k.user_id
    LEFT JOIN organizations o ON o.key = $2
    LEFT JOIN memberships m ON m.organization_id = o.id AND m.user_id = u.id
    LEFT JOIN workspaces w ON w.organization_id = o.id AND w.key = $3
   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

const SESSION_SQL = `
  SELECT s.*, p.key AS project_key, p.name AS project_name,
         CASE WHEN g.id IS NULL THEN NULL ELSE json_build_object('id', g.id, 'kind', g.kind, 'status', g.status, 'title', g.title,
           'session_count', g.session_count, 'message_count', g.message_count, 'total_tokens', g.total_tokens) END AS "group",
         json_build_object('id', u.id, 'email', u.email, 'username', u.username, 'full_name', u.full_name) AS created_by,
         coalesce(t.usage, '{}'::json) AS usage
    FROM sessions s
    LEFT JOIN projects p ON p.id = s.project_id
    LEFT JOIN session_groups g ON g.id = s.group_id
    JOIN users u ON u.id = s.user_id
    LEFT JOIN LATERAL (
      SELECT json_build_object('total_message_count', count(*), 'total_input_tokens', coalesce(sum(m.input_tokens), 0),
                               'total_output_tokens', coalesce(sum(m.output_tokens), 0), 'total_cost_usd', sum(m.cost_usd)) AS usage
        FROM session_messages m WHERE m.session_id = s.id
    ) t ON TRUE
   WHERE s.workspace_id = $1 AND s.id = $2 AND (s.user_id = $3 OR s.visibility = 'workspace')`;

// A REST list reply carries each session's usage, as the single read does.
const PAGE_SQL = (where: string) => `
  SELECT s.*, p.key AS project_key, p.name AS project_name,
         CASE WHEN g.id IS NULL THEN NULL ELSE json_build_object('id', g.id, 'kind', g.kind, 'status', g.status) END AS "group",
         json_build_object('id', u.id, 'email', u.email, 'username', u.username, 'full_name', u.full_name) AS created_by,
         coalesce(t.usage, '{}'::json) AS usage
    FROM (SELECT * FROM sessions s WHERE ${where} ORDER BY s.updated_at DESC, s.id DESC LIMIT $limit) s
    LEFT JOIN projects p ON p.id = s.project_id
    LEFT JOIN session_groups g ON g.id = s.group_id
    JOIN users u ON u.id = s.user_id
    LEFT JOIN LATERAL (
      SELECT json_build_object('total_message_count', count(*), 'total_input_tokens', coalesce(sum(m.input_tokens), 0),
                               'total_output_tokens', coalesce(sum(m.output_tokens), 0), 'total_cost_usd', sum(m.cost_usd)) AS usage
        FROM session_messages m WHERE m.session_id = s.id
    ) t ON TRUE
   ORDER BY s.updated_at DESC, s.id DESC`;

const DASHBOARD_SQL = (withCounts: boolean) => `
  SELECT s.id, json_build_object('kind', g.kind, 'status', g.status${withCounts ? ", 'session_count', g.session_count" : ''}) AS "group",
         json_build_object('username', u.username) AS created_by, json_build_object('key', p.key, 'name', p.name) AS project
    FROM (SELECT * FROM sessions s WHERE s.workspace_id = $1 AND s.archived_at IS NULL AND s.origin = 'user'
           AND (s.user_id = $2 OR s.visibility = 'workspace') ORDER BY s.updated_at DESC, s.id DESC LIMIT 100) s
    LEFT JOIN session_groups g ON g.id = s.group_id
    JOIN users u ON u.id = s.user_id
    LEFT JOIN projects p ON p.id = s.project_id
   ORDER BY s.updated_at DESC, s.id DESC`;

const ANALYTICS_SQL = `SELECT risk_score, overall_asr, total_attacks, total_trials, analytics_snapshot FROM airt_assessments WHERE id = $1 AND workspace_id = $2`;
// The attack list as the service answers it over REST: each span's stored reply text (migration 0041), one row each, written as they arrive.
const ATTACKS_SQL = `
  SELECT x.reply_json FROM airt_attack_spans x JOIN airt_assessments a ON a.id = x.assessment_id
   WHERE x.assessment_id = $1 AND a.workspace_id = $2 ORDER BY x.seq LIMIT 10000`;

/** Named `$name` parameters to positional ones, once per statement text. */
function positional(sql: string, bind: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const text = sql.replace(/\$([a-z_][a-z0-9_]*)/g, (_, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, values: names.map((name) => bind[name]) };
}

export function startHandwritten(url: string, port = 0): Promise<{ server: http.Server; port: number; pool: pg.Pool; statements: () => number }> {
  const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c jit=off' });
  let statements = 0;
  const query = (name: string, text: string, values: unknown[]) => {
    statements += 1;
    return pool.query({ name, text, values });
  };
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  async function authorise(req: http.IncomingMessage, org: string, ws: string) {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string') return null;
    const hash = crypto.createHash('sha256').update(key).digest('hex');
    const { rows } = await query('hw_auth', AUTH_SQL, [hash, org, ws]);
    const row = rows[0];
    if (!row || row.is_suspended || !row.role || !row.workspace_id) return null;
    if ((row.key_org && row.key_org !== row.org_id) || (row.key_ws && row.key_ws !== row.workspace_id)) return null;
    return row as { user_id: string; workspace_id: string };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/api/v1/health') return send(res, 200, { status: 'ok' });
    if (url.pathname === '/graphql' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { variables: { org: string; workspace: string; counts?: boolean } };
      const auth = await authorise(req, body.variables.org, body.variables.workspace);
      if (!auth) return send(res, 404, { errors: [{ message: 'not found' }] });
      const { rows } = await query(`hw_dashboard_${Boolean(body.variables.counts)}`, DASHBOARD_SQL(Boolean(body.variables.counts)), [auth.workspace_id, auth.user_id]);
      return send(res, 200, { data: { workspace: { sessions: rows } } });
    }
    const assessment = /^\/api\/v1\/org\/([^/]+)\/ws\/([^/]+)\/airt\/assessments\/([^/]+)\/(analytics|traces\/attacks)$/.exec(url.pathname);
    if (assessment) {
      const auth = await authorise(req, decodeURIComponent(assessment[1]), decodeURIComponent(assessment[2]));
      if (!auth) return send(res, 404, { code: 404 });
      if (assessment[4] === 'analytics') {
        const { rows } = await query('hw_analytics', ANALYTICS_SQL, [assessment[3], auth.workspace_id]);
        return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { code: 404 });
      }
      statements += 1;
      const client = await pool.connect();
      try {
        let pending = '[';
        await new Promise<void>((resolve, reject) => {
          const config: pg.QueryArrayConfig = { name: 'hw_attacks', text: ATTACKS_SQL, values: [assessment[3], auth.workspace_id], rowMode: 'array' };
          const rows = new pg.Query(config);
          rows.on('row', (values: string[]) => {
            pending += pending === '[' ? values[0] : `,${values[0]}`;
            if (pending.length < 65536) return;
            if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
            res.write(pending);
            pending = '';
          });
          rows.on('end', () => resolve());
          rows.on('error', reject);
          client.query(rows);
        });
        pending += ']';
        if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(pending) });
        return void res.end(pending);
      } finally {
        client.release();
      }
    }
    const match = /^\/api\/v1\/org\/([^/]+)\/ws\/([^/]+)\/sessions(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match || req.method !== 'GET') return send(res, 404, { code: 404 });
    const auth = await authorise(req, decodeURIComponent(match[1]), decodeURIComponent(match[2]));
    if (!auth) return send(res, 404, { code: 404 });
    if (match[3] === 'facets') {
      // The default view, as the service answers it: the maintained counts (migration 0014).
      const { rows } = await query('hw_facets', FACET_COUNTS_SQL.replace('$workspace_id', '$1').replace('$viewer_id', '$2'), [auth.workspace_id, auth.user_id]);
      return send(res, 200, toFacets(rows as FacetRow[]));
    }
    if (match[3]) {
      const { rows } = await query('hw_session', SESSION_SQL, [auth.workspace_id, match[3], auth.user_id]);
      return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { code: 404 });
    }
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const where = sessionWhere(auth.workspace_id, auth.user_id, {});
    const count = positional(`SELECT count(*) AS total FROM sessions s WHERE ${where.sql}`, where.bind);
    const page = positional(PAGE_SQL(where.sql), { ...where.bind, limit });
    const [total, rows] = await Promise.all([query('hw_count', count.text, count.values), query('hw_page', page.text, page.values)]);
    return send(res, 200, { sessions: rows.rows, total: Number(total.rows[0].total), page: 1, limit });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => (res.headersSent ? res.destroy() : send(res, 500, { code: 500, detail: String(error) })));
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, pool, statements: () => statements })),
  );
}
