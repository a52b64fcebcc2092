import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database, onStatement } from '../../../src/db/database';
import { countFacets, toFacets } from '../../../src/modules/sessions/session-facets.service';
import { usesFacetCounts } from '../../../src/modules/sessions/facet-counts';
import { addMember, createUser, type TestUser } from '../../factories/accounts';
import { appendMessages, createGroup, saveSession, sessionsPath } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * The unfiltered facets come from counts PostgreSQL maintains on write
 * (migration 0014). After random saves, label and visibility changes, group
 * moves, archives, unarchives, deletes, group status changes, a group delete
 * and concurrent saves, the maintained answer must equal the facets counted
 * from the sessions themselves, for every viewer.
 */
const api = useTestApp();
let owner: TestUser;
let writers: TestUser[];
let workspaceId: string;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function facetsOf(user: TestUser): Promise<unknown> {
  const res = await rest(api, 'GET', `${sessionsPath(owner.orgKey)}/facets`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

async function expectCountsExact(): Promise<void> {
  for (const viewer of [owner, ...writers]) {
    const maintained = await facetsOf(viewer);
    const counted = toFacets(await countFacets(workspaceId, viewer.id, {}));
    expect(maintained).toEqual(counted);
  }
}

beforeAll(async () => {
  owner = await createUser();
  writers = [await createUser(), await createUser()];
  for (const writer of writers) await addMember(owner.orgKey, writer, 'contributor');
  const [row] = await database().query<{ id: string }>(
    "SELECT w.id FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.key = $org AND w.key = 'default'",
    { bind: { org: owner.orgKey }, type: QueryTypes.SELECT },
  );
  workspaceId = row.id;
});

describe('maintained facet counts', () => {
  it('answer the unfiltered facets from the counts table in one statement, and any filter from the sessions', async () => {
    await saveSession(api, owner, { agent: 'codex', labels: { env: ['prod'] } });
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    await facetsOf(owner);
    stop();
    expect(statements.filter((sql) => sql.includes('session_facet_counts'))).toHaveLength(1);
    expect(statements.filter((sql) => sql.includes('FROM sessions s'))).toHaveLength(0);
    expect(usesFacetCounts({})).toBe(true);
    expect(usesFacetCounts({ agent: [] })).toBe(true);
    expect(usesFacetCounts({ agent: ['codex'] })).toBe(false);
    expect(usesFacetCounts({ include_workload_sessions: true })).toBe(false);
    expect(usesFacetCounts({ search: 'x' })).toBe(false);
  });

  it('equal the counted facets after random writes of every kind, for every viewer', async () => {
    const next = random(20261123);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const people = [owner, ...writers];
    const groups = [
      (await createGroup(api, owner, { kind: 'workflow' })).id as string,
      (await createGroup(api, owner, { kind: 'worker_run' })).id as string,
      (await createGroup(api, owner, { kind: 'evaluation_item' })).id as string,
    ];
    const sessions: { id: string; user: TestUser }[] = [];
    const body = () => ({
      agent: pick(['codex', 'claude', 'aider', null]),
      model: pick(['model-a', 'model-b', 'model-c']),
      visibility: pick(['private', 'workspace']),
      origin: pick(['user', 'user', 'user', 'worker', 'eval']),
      group_id: pick([...groups, null, null]),
      labels: pick([{}, { env: ['prod'] }, { env: ['dev', 'prod'], team: ['core'] }, { team: ['ml'] }, { tier: ['gold'], env: ['dev'] }]),
    });

    for (let index = 0; index < 30; index += 1) {
      const user = pick(people);
      const saved = await saveSession(api, user, body(), { orgKey: owner.orgKey });
      sessions.push({ id: saved.id, user });
    }
    await expectCountsExact();

    const path = sessionsPath(owner.orgKey);
    for (let step = 0; step < 60; step += 1) {
      const target = pick(sessions);
      const token = target.user.token;
      const op = pick(['resave', 'patch', 'archive', 'unarchive', 'delete', 'group-status', 'append', 'new']);
      // Writes the rules refuse (a shared session made private again, …) are part of the mix: they must change nothing.
      const status = (res: { status: number }) => {
        expect(res.status).toBeLessThan(500);
        return res.status;
      };
      if (op === 'resave') status(await rest(api, 'POST', path, { token, body: { id: target.id, ...body() } }));
      if (op === 'patch') status(await rest(api, 'PATCH', `${path}/${target.id}`, { token, body: { labels: body().labels, visibility: pick(['private', 'workspace']) } }));
      if (op === 'archive') status(await rest(api, 'POST', `${path}/${target.id}/archive`, { token }));
      if (op === 'unarchive') status(await rest(api, 'POST', `${path}/${target.id}/unarchive`, { token }));
      if (op === 'delete' && status(await rest(api, 'DELETE', `${path}/${target.id}`, { token })) === 200) sessions.splice(sessions.indexOf(target), 1);
      if (op === 'group-status') {
        const res = await rest(api, 'PATCH', `${path}/groups/${pick(groups)}`, { token: owner.token, body: { status: pick(['running', 'completed', 'failed', 'cancelled']) } });
        expect(res.status).toBe(200);
      }
      if (op === 'append') await appendMessages(api, target.user, target.id, [{ role: 'user', content: 'more' }], { orgKey: owner.orgKey }).catch(() => undefined);
      if (op === 'new') {
        const user = pick(people);
        sessions.push({ id: (await saveSession(api, user, body(), { orgKey: owner.orgKey })).id, user });
      }
      if (step % 15 === 14) await expectCountsExact();
    }
    await expectCountsExact();

    // A group deleted under its sessions (ON DELETE SET NULL) takes them out of the group dimensions once.
    await database().query('DELETE FROM session_groups WHERE id = $id', { bind: { id: groups[0] } });
    await expectCountsExact();
  });

  it('stay exact under concurrent saves into one workspace', async () => {
    const saves = Array.from({ length: 30 }, (_, index) =>
      rest(api, 'POST', sessionsPath(owner.orgKey), {
        token: owner.token,
        body: { id: crypto.randomUUID(), model: `model-${index % 3}`, agent: 'codex', visibility: index % 2 ? 'workspace' : 'private', labels: { run: [String(index % 4)] } },
      }),
    );
    const results = await Promise.all(saves);
    expect(results.every((res) => res.status === 201)).toBe(true);
    await expectCountsExact();
  });

  it("stay exact when a session joins a group while the group's status changes (the two writes take turns on the group's row)", async () => {
    const group = await createGroup(api, owner, { status: 'running' });
    const session = await saveSession(api, owner, { visibility: 'workspace', model: 'model-g' });
    // The join runs first and stays open; the status change starts meanwhile.
    let changed = false;
    // Begun by hand: the change below is another client's, on a connection of its own.
    const transaction = await database().transaction();
    await database().query('UPDATE sessions SET group_id = $group WHERE id = $id', { bind: { group: group.id, id: session.id }, transaction });
    const change = database()
      .query("UPDATE session_groups SET status = 'completed' WHERE id = $group", { bind: { group: group.id } })
      .then(() => (changed = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // It waits for the join (without the lock it ran at once, counting the group's sessions without this one).
    const waited = !changed;
    await transaction.commit();
    expect(waited).toBe(true);
    await change;
    expect(changed).toBe(true);
    await expectCountsExact();
  });

  it('equal a recount from scratch', async () => {
    const summed = `SELECT owner_key, dim, label_key, value, sum(n)::int AS n FROM session_facet_counts WHERE workspace_id = $ws
                     GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4`;
    const before = await database().query(summed, { bind: { ws: workspaceId }, type: QueryTypes.SELECT });
    await database().query('SELECT session_facet_counts_rebuild($ws)', { bind: { ws: workspaceId } });
    const after = await database().query(summed, { bind: { ws: workspaceId }, type: QueryTypes.SELECT });
    expect(before).toEqual(after);
    expect(after.length).toBeGreaterThan(10);
  });
});
