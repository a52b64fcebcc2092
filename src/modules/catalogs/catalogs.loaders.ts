import DataLoader from 'dataloader';
import { childrenLoader } from '../../core/loaders/children-loader';
import { tenantFilter } from '../../core/tenancy/tenant-sql';
import type { Viewer } from '../../core/viewer';
import { plainQuery } from '../../db/hot';
import { CAPABILITY_SELECT } from './capabilities.service';
import type { CapabilityRow, TaskSetRow } from './catalogs.mapper';
import { datasetSelect } from './datasets.service';
import type { DatasetArtifactSummary, TaskSummary } from './catalogs.types';
import { TASK_SET_LIST_SELECT } from './task-sets.service';
import { tasksReadBy } from './task-verification.policy';
import { taskSelect } from './tasks.service';

type CapabilityVersionRow = CapabilityRow & { parent_id: string; [column: string]: unknown };

/**
 * GraphQL navigation for dashboards, one statement per batch (and distinct
 * `limit`: childrenLoader), bound to the viewer's organizations when created:
 * organization → datasets / capabilities / tasks / task sets (latest version
 * per name, newest first, the field's `limit` each); task set → member tasks
 * (pinned version, else latest; the set's own organization first, then public
 * tasks); capability → its versions, newest first.
 */
export function createCatalogLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  /** `from`: the table, or what it is read from as `a`; each organization's first `limit` rows, newest first. */
  function latestByOrganization<T extends { organization_id: string }>(from: string, select: string, versioned: boolean) {
    return childrenLoader<T & Record<string, unknown>>(
      'organization_id',
      tenant &&
        ((orgIds, limit) =>
          plainQuery<T & Record<string, unknown>>(
            `SELECT * FROM (
               SELECT ${select}, row_number() OVER (PARTITION BY a.organization_id ORDER BY a.created_at DESC, a.id DESC) AS position
                 FROM ${from} a JOIN organizations o ON o.id = a.organization_id
                WHERE a.organization_id = ANY($org_ids::uuid[]) ${versioned ? 'AND a.is_latest' : ''}
                  AND ${tenant.where('a', { workspace: false })}) ranked
              WHERE ranked.position <= $limit ORDER BY ranked.position`,
            { ...tenant.bind, org_ids: orgIds, limit },
          )),
    );
  }

  return {
    organizationDatasets: latestByOrganization<DatasetArtifactSummary & { organization_id: string }>('datasets', datasetSelect(), true),
    organizationCapabilities: latestByOrganization<CapabilityRow>('capabilities', CAPABILITY_SELECT, true),
    // The organization navigated from reads its own tasks.
    organizationTasks: latestByOrganization<TaskSummary>(tasksReadBy('t.organization_id'), taskSelect(), true),
    organizationTaskSets: latestByOrganization<TaskSetRow>('task_sets', TASK_SET_LIST_SELECT, false),

    /** Key: `<reader organization id> <set organization id> <owner or ''> <name> <version or ''>` of a member (space separated). */
    memberTask: new DataLoader<string, TaskSummary | null>(async (keys) => {
      if (!tenant) return keys.map(() => null);
      const parts = keys.map((key) => key.split(' '));
      const rows = await plainQuery<TaskSummary & { ord: string }>(
        `SELECT k.ord, t.* FROM unnest($k_reader::uuid[], $k_org::uuid[], $k_owner::text[], $k_name::text[], $k_version::text[])
                                WITH ORDINALITY k(reader, org_id, owner, name, version, ord)
           CROSS JOIN LATERAL (
             SELECT ${taskSelect()} FROM ${tasksReadBy('k.reader')} a JOIN organizations o ON o.id = a.organization_id
              WHERE a.name = k.name AND (k.owner = '' OR o.key = k.owner)
                AND (k.version = '' OR a.version = k.version) AND (k.version <> '' OR a.is_latest)
                AND (a.is_public OR (a.organization_id = k.org_id AND ${tenant.where('a', { workspace: false })}))
              ORDER BY (a.organization_id = k.org_id) DESC, a.version_key DESC, a.id LIMIT 1) t`,
        {
          ...tenant.bind,
          k_reader: parts.map((part) => part[0] || null),
          k_org: parts.map((part) => part[1]),
          k_owner: parts.map((part) => part[2]),
          k_name: parts.map((part) => part[3]),
          k_version: parts.map((part) => part[4]),
        },
      );
      const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
      return keys.map((_key, index) => byOrd.get(index + 1) ?? null);
    }),

    /** Parent: `<organization id> <name>` (capabilityVersionsOf): a capability's first `limit` versions, newest first. */
    capabilityVersionRows: childrenLoader<CapabilityVersionRow>(
      'parent_id',
      tenant &&
        ((keys, limit) =>
          plainQuery<CapabilityVersionRow>(
            `SELECT k.id AS parent_id, c.* FROM unnest($keys::text[]) WITH ORDINALITY AS k(id, ord)
               CROSS JOIN LATERAL (
                 SELECT ${CAPABILITY_SELECT}, row_number() OVER (ORDER BY a.version_key DESC) AS position
                   FROM capabilities a JOIN organizations o ON o.id = a.organization_id
                  WHERE a.organization_id = split_part(k.id, ' ', 1)::uuid AND a.name = split_part(k.id, ' ', 2)
                    AND (a.is_public OR ${tenant.where('a', { workspace: false })})
                  ORDER BY a.version_key DESC LIMIT $limit) c
              ORDER BY k.ord, c.position`,
            { ...tenant.bind, keys, limit },
          )),
    ),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createCatalogLoaders> {}
}

/** The capabilityVersionRows parent of a capability. */
export const capabilityVersionsOf = (capability: { organization_id?: string; local_name?: string }) => `${capability.organization_id} ${capability.local_name}`;
