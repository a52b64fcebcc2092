import type { UserModel } from '../../models';

/** Restrictions carried by an API key; null fields mean "not restricted". */
export interface ApiKeyScope {
  id: string;
  organization_id: string | null;
  workspace_id: string | null;
  allowed_scopes: string[] | null;
  allow_self_revoke: boolean;
}

/** The authenticated caller of one request. */
export interface Viewer {
  user: UserModel;
  apiKey: ApiKeyScope | null;
}
