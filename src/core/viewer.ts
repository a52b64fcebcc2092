import type { UserRecord } from '../../models';
import { ForbiddenError } from './errors';

/** Restrictions carried by an API key; null fields mean "not restricted". */
export interface ApiKeyScope {
  id: string;
  organization_id: string | null;
  workspace_id: string | null;
  allowed_scopes: string[] | null;
  allow_self_revoke: boolean;
}

/** The authenticated caller of one request: plain columns, never a password hash. */
export interface Viewer {
  user: UserRecord;
  apiKey: ApiKeyScope | null;
}

/** Suspended accounts get 403 user_suspended, whatever credential they use. */
export function assertActive(user: Pick<UserRecord, 'is_suspended'>): void {
  if (user.is_suspended) throw new ForbiddenError('This account is suspended', 'user_suspended');
}
