import type { Viewer } from './viewer';
import { createAccountLoaders } from '../modules/accounts/accounts.loaders';
import { createWorkspaceLoaders } from '../modules/workspaces/workspaces.loaders';

/**
 * Every DataLoader of one request. Each domain contributes a factory; loaders
 * are created per request (no cross-request cache) and bound to the viewer.
 */
export function createLoaders(viewer: Viewer | null) {
  return {
    ...createAccountLoaders(viewer),
    ...createWorkspaceLoaders(viewer),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
