import type { Migration } from './types';

/** A task's instruction (decisions §14: `GET ORG/tasks/{name}/instruction`), given when it is published. */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`ALTER TABLE tasks ADD COLUMN instruction text`);
};
