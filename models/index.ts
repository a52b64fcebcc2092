import { Sequelize, type Model, type ModelCtor } from 'sequelize-typescript';
import { ApiKeyModel } from './api-key.model';
import { CapabilityFileModel } from './capability-file.model';
import { CapabilityModel } from './capability.model';
import { AssessmentModel } from './assessment.model';
import { AttackSpanModel } from './attack-span.model';
import { WorkflowRunModel } from './workflow-run.model';
import { ChatIntegrationModel } from './chat-integration.model';
import { DatasetActivityModel } from './dataset-activity.model';
import { DatasetFileModel } from './dataset-file.model';
import { DatasetModel } from './dataset.model';
import { InvitationModel } from './invitation.model';
import { MailOutboxModel } from './mail-outbox.model';
import { PasswordResetTokenModel } from './password-reset-token.model';
import { MembershipModel } from './membership.model';
import { OrganizationModel } from './organization.model';
import { ProjectModel } from './project.model';
import { SessionGroupModel } from './session-group.model';
import { SessionMessageModel } from './session-message.model';
import { SessionModel } from './session.model';
import { TaskSetModel } from './task-set.model';
import { TaskModel } from './task.model';
import { UserModel } from './user.model';
import { WorkspaceModel } from './workspace.model';

export { MembershipModel, OrganizationModel, ProjectModel, UserModel, WorkspaceModel };
export { ApiKeyModel, MailOutboxModel, PasswordResetTokenModel };
export { ROLES, type Role } from './membership.model';
export { InvitationModel };
export { INVITATION_STATUSES, type InvitationStatus } from './invitation.model';
export { USER_RECORD_COLUMNS, type UserRecord } from './user.model';
export type { OrganizationRecord } from './organization.model';
export type { WorkspaceRecord } from './workspace.model';
export { SessionGroupModel, SessionMessageModel, SessionModel };
export { ChatIntegrationModel };
export { CapabilityFileModel, CapabilityModel, DatasetActivityModel, DatasetFileModel, DatasetModel, TaskModel, TaskSetModel };
export { DATASET_ACTIONS, type DatasetAction } from './dataset-activity.model';
export { AssessmentModel, AttackSpanModel, WorkflowRunModel };
export { ASSESSMENT_STATUSES, type AssessmentStatus } from './assessment.model';
export { WORKFLOW_RUN_STATUSES, type WorkflowRunStatus } from './workflow-run.model';

/** A row's columns as a plain object: what mappers read, from a model instance or a raw row alike. */
export type RecordOf<M extends Model> = Omit<M, Exclude<keyof Model, 'id'>>;

/** The identity columns of a user (no hashes), as loaders and joins carry them. */
export type UserIdentityRecord = Pick<UserModel, 'id' | 'email' | 'username' | 'full_name'>;

/**
 * A Sequelize instance with the given models registered explicitly (no
 * directory scanning); the list comes from the module registry
 * (src/modules/index.ts), where each module names its models.
 */
export function createSequelize(
  url: string,
  options: {
    poolMax: number;
    models?: readonly ModelCtor[];
    statementTimeoutMs?: number;
    jit?: boolean;
    logSql?: (sql: string) => void;
    /** How long opening a connection may take (0 or unset: no limit), and waiting for one of the pool's. */
    connectTimeoutMs?: number;
    acquireTimeoutMs?: number;
  },
): Sequelize {
  return new Sequelize(url, {
    dialect: 'postgres',
    models: [...(options.models ?? [])],
    logging: options.logSql ?? false,
    pool: { max: options.poolMax, min: 0, idle: 10000, ...(options.acquireTimeoutMs ? { acquire: options.acquireTimeoutMs } : {}) },
    // Set on every connection at connect time (a startup parameter, no extra statement per checkout).
    dialectOptions: {
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      // A server that accepts the connection but never answers fails it instead of holding the request; TCP
      // keep-alive finds a peer that went away (a host or network gone) on a connection left open.
      ...(options.connectTimeoutMs ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
      keepAlive: true,
      // Startup parameters (no statement per connection): JIT stays off unless
      // asked for, and named prepared statements (src/db/hot.ts: key lookups)
      // keep one generic plan per connection instead of being re-planned on
      // every execution. The setting covers every statement sent with
      // parameters (unnamed ones too: plainQuery, Sequelize `bind`); Sequelize
      // model queries inline their values and are planned with them. The list
      // page's generic plans run somewhat slower than custom ones would, a
      // trade accepted for not re-planning (bench/README.md, requests).
      options: [options.jit === false ? '-c jit=off' : '', '-c plan_cache_mode=force_generic_plan'].filter(Boolean).join(' '),
    },
    define: { underscored: true },
  });
}
