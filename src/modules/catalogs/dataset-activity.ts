import type { Transaction } from 'sequelize';
import { DatasetActivityModel, type DatasetAction } from '../../../models';
import type { AppContext } from '../../core/context';
import { rowSelect } from '../../core/graphql-sql/sql-fields';
import { resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { plainQuery } from '../../db/hot';
import { ACTIVITY_PAGE, type DatasetActivityArgs } from './catalogs.inputs';
import { nameFilter } from './versioned-artifacts';
import { DatasetActivityEntry, type DatasetActivityListResponse } from './catalogs.types';

/**
 * Dataset activity (decisions §14): every publish, download and delete of a
 * dataset version, written in the transaction of what it records and kept
 * by the organization of the route it happened on. `GET ORG/datasets/activity`
 * lists the organization's entries newest first; any member reads them.
 */

export interface DatasetActivity {
  dataset_id: string | null;
  /** The owning organization's key and the dataset's local name, as they are now. */
  dataset_owner: string;
  dataset_name: string;
  version: string;
  action: DatasetAction;
  format?: string | null;
}

/** Records one entry of `scope`'s organization by its caller, inside `transaction`. */
export async function recordDatasetActivity(scope: OrgScope, entry: DatasetActivity, transaction: Transaction): Promise<void> {
  await DatasetActivityModel.create(
    {
      organization_id: scope.org.id,
      dataset_id: entry.dataset_id,
      dataset_owner: entry.dataset_owner,
      dataset_name: entry.dataset_name,
      version: entry.version,
      user_id: scope.viewer.user.id,
      action: entry.action,
      format: entry.format ?? null,
    },
    { transaction, returning: false },
  );
}

let selected: string | undefined;
const activitySelect = () => (selected ??= rowSelect(DatasetActivityEntry, 'a'));

export async function listDatasetActivity(ctx: AppContext, orgKey: string, args: DatasetActivityArgs): Promise<DatasetActivityListResponse> {
  const scope = await resolveOrg(ctx, orgKey);
  const limit = args.limit ?? ACTIVITY_PAGE.fallback;
  const offset = args.offset ?? 0;
  const conditions = ['a.organization_id = $org_id'];
  const bind: Record<string, unknown> = { org_id: scope.org.id };
  if (args.user_id) {
    conditions.push('a.user_id = $user_id');
    bind.user_id = args.user_id;
  }
  if (args.dataset_name) {
    // As the dataset list's `name` filter.
    const filter = nameFilter(args.dataset_name);
    if (!filter) {
      conditions.push('FALSE');
    } else {
      bind.dataset_name = filter.name;
      conditions.push('a.dataset_name = $dataset_name');
      if (filter.owner) {
        bind.dataset_owner = filter.owner;
        conditions.push('a.dataset_owner = $dataset_owner');
      }
    }
  }
  const where = conditions.join(' AND ');
  const [counted, items] = await Promise.all([
    plainQuery<{ total: string }>(`SELECT count(*) AS total FROM dataset_activity a WHERE ${where}`, bind, { prepare: true }),
    plainQuery<DatasetActivityEntry>(
      `SELECT ${activitySelect()} FROM dataset_activity a WHERE ${where} ORDER BY a.created_at DESC, a.id DESC LIMIT $limit OFFSET $offset`,
      { ...bind, limit, offset },
      { prepare: true },
    ),
  ]);
  return { items, total: Number(counted[0]?.total ?? 0), limit, offset };
}
