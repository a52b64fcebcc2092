import type { EndpointRow, Target, TenancySetup } from '../../helpers/tenancy';

/**
 * Evaluation endpoints of the tenancy matrix. `setup` creates one evaluation
 * of two dataset rows in the target workspace, so reads and writes address an
 * evaluation and an item that exist (a reader must meet 403, not 404). The
 * owner's writes run in file order: create, transition, retry (409: nothing
 * to retry), cancel.
 */
const fixture = new Map<string, { id: string; itemId: string }>();
const ws = (t: Target) => `/org/${t.org}/ws/${t.ws}`;
// Under another organization the ids are simply unknown there.
const ids = (t: Target) => fixture.get(`${t.org}/${t.ws}`) ?? [...fixture.values()][0];
const one = (t: Target) => `${ws(t)}/evaluation/${ids(t).id}`;

export const setup: TenancySetup = async (t, sendAsOwner) => {
  const created = await sendAsOwner('POST', `${ws(t)}/evaluation`, { model: 'm', name: 'Tenancy evaluation', dataset: [{ a: 1 }, { b: 2 }] });
  if (created.status !== 201) throw new Error(`tenancy setup evaluation: ${created.status} ${JSON.stringify(created.body)}`);
  const listed = await sendAsOwner('GET', `${ws(t)}/evaluation/${created.body.id}/items`, undefined);
  fixture.set(`${t.org}/${t.ws}`, { id: created.body.id, itemId: listed.body.items[0].id });
};

export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluations', path: (t) => `${ws(t)}/evaluations` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id', path: (t) => one(t) },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/items', path: (t) => `${one(t)}/items` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/items/:item_id', path: (t) => `${one(t)}/items/${ids(t).itemId}` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/analytics', path: (t) => `${one(t)}/analytics` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/items/:item_id/transcript', path: (t) => `${one(t)}/items/${ids(t).itemId}/transcript` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/items/:item_id/trajectory', path: (t) => `${one(t)}/items/${ids(t).itemId}/trajectory` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/traces', path: (t) => `${one(t)}/traces` },
  { method: 'GET', route: '/org/:org/ws/:workspace/evaluation/:id/traces/items', path: (t) => `${one(t)}/traces/items` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/evaluation',
    path: (t) => `${ws(t)}/evaluation`,
    body: () => ({ model: 'm', name: 'Tenancy write', dataset: [{}] }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/evaluation/:id/items/:item_id/transition',
    path: (t) => `${one(t)}/items/${ids(t).itemId}/transition`,
    body: () => ({ to: 'claiming' }),
  },
  { method: 'POST', route: '/org/:org/ws/:workspace/evaluation/:id/retry-failed', path: (t) => `${one(t)}/retry-failed` },
  { method: 'POST', route: '/org/:org/ws/:workspace/evaluation/:id/cancel', path: (t) => `${one(t)}/cancel` },
];
