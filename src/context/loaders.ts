import type { Viewer } from './viewer';
import { createAccountLoaders } from '../modules/accounts/accounts.loaders';
import { createOrganizationLoaders } from '../modules/organizations/organizations.loaders';
import { createWorkspaceLoaders } from '../modules/workspaces/workspaces.loaders';
import { createSessionLoaders } from '../modules/sessions/sessions.loaders';
import { createSessionGroupLoaders } from '../modules/session-groups/session-groups.loaders';
import { createProjectLoaders } from '../modules/projects/projects.loaders';

/**
 * Every DataLoader of one request. Each domain contributes a factory; loaders
 * are created per request (no cross-request cache) and bound to the viewer.
 */
export function createLoaders(viewer: Viewer | null) {
  return {
    ...createAccountLoaders(viewer),
    ...createOrganizationLoaders(viewer),
    ...createWorkspaceLoaders(viewer),
    ...createSessionLoaders(viewer),
    ...createSessionGroupLoaders(viewer),
    ...createProjectLoaders(viewer),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
