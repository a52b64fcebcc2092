import type { WorkspaceRecord } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { WorkspaceResponse } from './workspaces.types';

/** Row → GraphQL type (the columns its fields declare); org_name and project_count resolve through loaders. */
export const toWorkspace = (row: WorkspaceRecord): WorkspaceResponse => fromRow(WorkspaceResponse, row);
