import { CapabilityFileModel, CapabilityModel, DatasetActivityModel, DatasetFileModel, DatasetModel, TaskModel, TaskSetModel } from '../../../models';
import { defineScopes, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { CapabilityResolver } from './capabilities.resolver';
import { capabilityBundleDownload, capabilityBundleOwnerPath, capabilityFileDownload } from './capability-downloads';
import { createCatalogLoaders } from './catalogs.loaders';
import { datasetArchiveDownload, datasetFileDownload } from './dataset-downloads';
import { DatasetResolver } from './datasets.resolver';
import { OrganizationCatalogsResolver } from './organization-catalogs.resolver';
import { TaskSetResolver } from './task-sets.resolver';
import { TaskResolver } from './tasks.resolver';

const SCOPES = defineScopes({
  // Every write to the organization's catalogs (datasets, capabilities, tasks, task sets: publishing a name or a new
  // version, visibility, replacing, deleting). The catalogs belong to the whole organization, so the scope is
  // organization-wide: a key limited to one workspace reads them and writes nothing (403).
  'catalog:publish': { roles: WRITER_ROLES, orgWide: true },
});

/** Catalogs: datasets, capabilities and tasks versioned by semver, task sets; shared across organizations when public. */
export const catalogsModule: AppModule = {
  name: 'catalogs',
  resolvers: [DatasetResolver, CapabilityResolver, TaskResolver, TaskSetResolver, OrganizationCatalogsResolver],
  models: [DatasetModel, DatasetFileModel, DatasetActivityModel, CapabilityModel, CapabilityFileModel, TaskModel, TaskSetModel],
  loaders: createCatalogLoaders,
  scopes: SCOPES,
  bodyRoutes: [capabilityFileDownload, capabilityBundleOwnerPath, capabilityBundleDownload, datasetArchiveDownload, datasetFileDownload],
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}
