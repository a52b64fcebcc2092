import DataLoader from 'dataloader';
import { MAX_LIST_PAGE } from '../../core/pagination';
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

/**
 * GraphQL navigation for dashboards, one statement per batch, bound to the
 * viewer's organizations when created:
 * organization → datasets / capabilities / tasks / task sets (latest version
 * per name, newest first, at most MAX_LIST_PAGE each); task set → member tasks
 * (pinned version, else latest; the set's own organization first, then public
 * tasks); capability → every version.
 */
export function createCatalogLoaders(viewer: Viewer | null) {
  const tenant = viewer ? tenantFilter(viewer) : null;

  /** `from`: the table, or what it is read from as `a`. */
  function latestByOrganization<T extends { organization_id: string }>(from: string, select: string, versioned: boolean) {
    return new DataLoader<string, T[]>(async (orgIds) => {
      if (!tenant) return orgIds.map(() => []);
      const rows = await plainQuery<T>(
        `SELECT * FROM (
           SELECT ${select}, row_number() OVER (PARTITION BY a.organization_id ORDER BY a.created_at DESC, a.id DESC) AS position
             FROM ${from} a JOIN organizations o ON o.id = a.organization_id
            WHERE a.organization_id = ANY($org_ids::uuid[]) ${versioned ? 'AND a.is_latest' : ''}
              AND ${tenant.where('a', { workspace: false })}) ranked
          WHERE ranked.position <= $per_org ORDER BY ranked.position`,
        { ...tenant.bind, org_ids: [...orgIds], per_org: MAX_LIST_PAGE },
      );
      const byOrg = new Map<string, T[]>();
      for (const row of rows) byOrg.set(row.organization_id, [...(byOrg.get(row.organization_id) ?? []), row]);
      return orgIds.map((id) => byOrg.get(id) ?? []);
    });
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

    /** Key: `<organization id> <name>`: every version of a capability, newest first (at most MAX_LIST_PAGE). */
    capabilityVersionRows: new DataLoader<string, CapabilityRow[]>(async (keys) => {
      if (!tenant) return keys.map(() => []);
      const parts = keys.map((key) => key.split(' '));
      const rows = await plainQuery<CapabilityRow & { ord: string }>(
        `SELECT k.ord, c.* FROM unnest($k_org::uuid[], $k_name::text[]) WITH ORDINALITY k(org_id, name, ord)
           CROSS JOIN LATERAL (
             SELECT ${CAPABILITY_SELECT} FROM capabilities a JOIN organizations o ON o.id = a.organization_id
              WHERE a.organization_id = k.org_id AND a.name = k.name
                AND (a.is_public OR ${tenant.where('a', { workspace: false })})
              ORDER BY a.version_key DESC LIMIT $per_name) c`,
        { ...tenant.bind, k_org: parts.map((part) => part[0]), k_name: parts.map((part) => part[1]), per_name: MAX_LIST_PAGE },
      );
      const byOrd = new Map<number, CapabilityRow[]>();
      for (const row of rows) byOrd.set(Number(row.ord), [...(byOrd.get(Number(row.ord)) ?? []), row]);
      return keys.map((_key, index) => byOrd.get(index + 1) ?? []);
    }),
  };
}

declare module '../../core/context' {
  interface Loaders extends ReturnType<typeof createCatalogLoaders> {}
}
