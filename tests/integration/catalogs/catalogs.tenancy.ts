import { b64, capabilityBody } from '../../factories/catalogs';
import type { EndpointRow, Target, TenancySetup } from '../../helpers/tenancy';

/**
 * Catalog endpoints of the tenancy matrix. `setup` publishes one artifact of
 * each kind under fixed names so reads, visibility changes and deletes
 * address something that exists (a reader must meet 403, not 404); the
 * deletes come last.
 */
const DS = 'tenancy-ds';
const CAP = 'tenancy-cap';
const TASK = 'tenancy-task';
const SET = 'tenancy-set';
const org = (t: Target) => `/org/${t.org}`;
const slug = (t: Target) => t.unique().replace(/[^a-z0-9-]/g, '');

export const setup: TenancySetup = async (t, sendAsOwner) => {
  const sends: [string, unknown][] = [
    ['datasets', { name: DS, version: '1.0.0', files: [{ path: 'train.csv', content_base64: b64('a,b\n1,2\n'), split: 'train' }] }],
    ['capabilities', capabilityBody(CAP, '1.0.0')],
    ['tasks', { name: TASK, version: '1.0.0', readme: '# readme', instruction: 'Find the flag.' }],
    ['task-sets', { name: SET, members: [TASK] }],
  ];
  for (const [kind, body] of sends) {
    const res = await sendAsOwner('POST', `${org(t)}/${kind}`, body);
    if (res.status !== 201) throw new Error(`tenancy setup ${kind}: ${res.status} ${JSON.stringify(res.body)}`);
  }
};

export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/datasets', path: (t) => `${org(t)}/datasets` },
  { method: 'GET', route: '/org/:org/datasets/facets', path: (t) => `${org(t)}/datasets/facets` },
  { method: 'GET', route: '/org/:org/datasets/activity', path: (t) => `${org(t)}/datasets/activity` },
  { method: 'GET', route: '/org/:org/datasets/:name', path: (t) => `${org(t)}/datasets/${DS}` },
  { method: 'GET', route: '/org/:org/datasets/:name/versions', path: (t) => `${org(t)}/datasets/${DS}/versions` },
  { method: 'GET', route: '/org/:org/datasets/:name/:version', path: (t) => `${org(t)}/datasets/${DS}/1.0.0` },
  { method: 'GET', route: '/org/:org/capabilities', path: (t) => `${org(t)}/capabilities` },
  { method: 'GET', route: '/org/:org/capabilities/facets', path: (t) => `${org(t)}/capabilities/facets` },
  { method: 'GET', route: '/org/:org/capabilities/:name', path: (t) => `${org(t)}/capabilities/${CAP}` },
  { method: 'GET', route: '/org/:org/capabilities/:name/versions', path: (t) => `${org(t)}/capabilities/${CAP}/versions` },
  { method: 'GET', route: '/org/:org/capabilities/:name/readme', path: (t) => `${org(t)}/capabilities/${CAP}/readme` },
  { method: 'GET', route: '/org/:org/capabilities/:name/:version/bundle', path: (t) => `${org(t)}/capabilities/${CAP}/1.0.0/bundle` },
  { method: 'GET', route: '/org/:org/capabilities/:owner/:name/:version/bundle', path: (t) => `${org(t)}/capabilities/${t.org}/${CAP}/1.0.0/bundle` },
  { method: 'GET', route: '/org/:org/capabilities/:name/:version/files/:path', path: (t) => `${org(t)}/capabilities/${CAP}/1.0.0/files/README.md` },
  { method: 'GET', route: '/org/:org/capabilities/:name/:version', path: (t) => `${org(t)}/capabilities/${CAP}/1.0.0` },
  { method: 'GET', route: '/org/:org/capabilities/:name/:version/readme', path: (t) => `${org(t)}/capabilities/${CAP}/1.0.0/readme` },
  { method: 'GET', route: '/org/:org/tasks', path: (t) => `${org(t)}/tasks` },
  { method: 'GET', route: '/org/:org/tasks/facets', path: (t) => `${org(t)}/tasks/facets` },
  { method: 'GET', route: '/org/:org/tasks/:name', path: (t) => `${org(t)}/tasks/${TASK}` },
  { method: 'GET', route: '/org/:org/tasks/:name/versions', path: (t) => `${org(t)}/tasks/${TASK}/versions` },
  { method: 'GET', route: '/org/:org/tasks/:name/readme', path: (t) => `${org(t)}/tasks/${TASK}/readme` },
  { method: 'GET', route: '/org/:org/tasks/:name/instruction', path: (t) => `${org(t)}/tasks/${TASK}/instruction` },
  { method: 'GET', route: '/org/:org/tasks/:name/:version', path: (t) => `${org(t)}/tasks/${TASK}/1.0.0` },
  { method: 'GET', route: '/org/:org/tasks/:name/:version/readme', path: (t) => `${org(t)}/tasks/${TASK}/1.0.0/readme` },
  { method: 'GET', route: '/org/:org/task-sets', path: (t) => `${org(t)}/task-sets` },
  { method: 'GET', route: '/org/:org/task-sets/facets', path: (t) => `${org(t)}/task-sets/facets` },
  { method: 'GET', route: '/org/:org/task-sets/:name', path: (t) => `${org(t)}/task-sets/${SET}` },
  { method: 'POST', route: '/org/:org/datasets', path: (t) => `${org(t)}/datasets`, body: (t) => ({ name: slug(t), version: '1.0.0' }) },
  // A download reads the catalogue (it records the download): readers may, so it is no write of the matrix.
  { method: 'POST', route: '/org/:org/datasets/:name/:version/download', path: (t) => `${org(t)}/datasets/${DS}/1.0.0/download`, body: () => ({ split: 'train' }), readerMay: true },
  { method: 'POST', route: '/org/:org/capabilities', path: (t) => `${org(t)}/capabilities`, body: (t) => capabilityBody(slug(t)) },
  { method: 'POST', route: '/org/:org/tasks', path: (t) => `${org(t)}/tasks`, body: (t) => ({ name: slug(t), version: '1.0.0' }) },
  { method: 'POST', route: '/org/:org/task-sets', path: (t) => `${org(t)}/task-sets`, body: (t) => ({ name: slug(t), members: [TASK] }) },
  { method: 'PATCH', route: '/org/:org/datasets/:name/visibility', path: (t) => `${org(t)}/datasets/${DS}/visibility`, body: () => ({ is_public: true }) },
  { method: 'PATCH', route: '/org/:org/capabilities/:name/visibility', path: (t) => `${org(t)}/capabilities/${CAP}/visibility`, body: () => ({ is_public: true }) },
  { method: 'PATCH', route: '/org/:org/tasks/:name/visibility', path: (t) => `${org(t)}/tasks/${TASK}/visibility`, body: () => ({ is_public: true }) },
  { method: 'PATCH', route: '/org/:org/task-sets/:name/visibility', path: (t) => `${org(t)}/task-sets/${SET}/visibility`, body: () => ({ is_public: true }) },
  { method: 'PUT', route: '/org/:org/task-sets/:name', path: (t) => `${org(t)}/task-sets/${SET}`, body: () => ({ name: SET, members: [TASK], description: 'replaced' }) },
  { method: 'DELETE', route: '/org/:org/task-sets/:name', path: (t) => `${org(t)}/task-sets/${SET}` },
  { method: 'DELETE', route: '/org/:org/datasets/:name/:version', path: (t) => `${org(t)}/datasets/${DS}/1.0.0` },
  { method: 'DELETE', route: '/org/:org/capabilities/:name/:version', path: (t) => `${org(t)}/capabilities/${CAP}/1.0.0` },
  { method: 'DELETE', route: '/org/:org/tasks/:name/:version', path: (t) => `${org(t)}/tasks/${TASK}/1.0.0` },
];
