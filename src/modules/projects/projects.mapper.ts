import type { ProjectModel, RecordOf } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { ProjectResponse } from './projects.types';

/** Row → GraphQL type (the columns its fields declare); resource_counts resolves through a loader. */
export const toProject = (row: RecordOf<ProjectModel>): ProjectResponse => fromRow(ProjectResponse, row);
