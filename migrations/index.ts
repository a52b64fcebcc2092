import type { Migration } from './types';
import * as m0001 from './0001-core-tenancy';
import * as m0002 from './0002-accounts';
import * as m0003 from './0003-members-projects-integrations';
import * as m0004 from './0004-sessions';
import * as m0005 from './0005-session-indexes';
import * as m0006 from './0006-session-fixes';
import * as m0010 from './0010-rate-limits';
import * as m0011 from './0011-group-session-order';
import * as m0012 from './0012-session-group-rollups';
import * as m0013 from './0013-session-list-sorts';
import * as m0014 from './0014-session-facet-counts';
import * as m0020 from './0020-catalogs';
import * as m0030 from './0030-assessments';
import * as m0031 from './0031-workflow-runs';
import * as m0040 from './0040-evaluations';
import * as m0041 from './0041-attack-span-replies';
import * as m0050 from './0050-invitations';
import * as m0051 from './0051-account-hardening';

/**
 * The ordered list of migrations. Forward-only: a landed migration is never
 * edited; a change is a new file appended here.
 */
export const migrations: { name: string; up: Migration }[] = [
  { name: '0001-core-tenancy', up: m0001.up },
  { name: '0002-accounts', up: m0002.up },
  { name: '0003-members-projects-integrations', up: m0003.up },
  { name: '0004-sessions', up: m0004.up },
  { name: '0005-session-indexes', up: m0005.up },
  { name: '0006-session-fixes', up: m0006.up },
  { name: '0010-rate-limits', up: m0010.up },
  { name: '0011-group-session-order', up: m0011.up },
  { name: '0012-session-group-rollups', up: m0012.up },
  { name: '0013-session-list-sorts', up: m0013.up },
  { name: '0014-session-facet-counts', up: m0014.up },
  { name: '0020-catalogs', up: m0020.up },
  { name: '0030-assessments', up: m0030.up },
  { name: '0031-workflow-runs', up: m0031.up },
  { name: '0040-evaluations', up: m0040.up },
  { name: '0041-attack-span-replies', up: m0041.up },
  { name: '0050-invitations', up: m0050.up },
  { name: '0051-account-hardening', up: m0051.up },
];
