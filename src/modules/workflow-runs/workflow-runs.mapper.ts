import type { RecordOf, WorkflowRunModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { WorkflowRunSummary } from './workflow-runs.types';

/** Row → GraphQL type: the columns its fields declare (created_by stays internal). */
export const toWorkflowRun = (row: RecordOf<WorkflowRunModel>): WorkflowRunSummary => fromRow(WorkflowRunSummary, row);
