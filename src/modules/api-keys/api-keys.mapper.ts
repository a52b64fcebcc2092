import type { ApiKeyModel } from '../../../models';
import type { ApiKeyResponse, CreatedApiKeyResponse } from './api-keys.types';

/** Row → listed key; the hash never leaves this module. */
export function toApiKey(row: ApiKeyModel): ApiKeyResponse {
  return {
    id: row.id,
    masked_key: row.masked_key,
    name: row.name,
    active: row.revoked_at == null,
    allowed_scopes: row.allowed_scopes,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

export function toCreatedApiKey(row: ApiKeyModel, key: string): CreatedApiKeyResponse {
  const { id, ...rest } = toApiKey(row);
  return { id, key, ...rest };
}
