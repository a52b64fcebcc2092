import type { Sequelize } from 'sequelize';

/** A forward-only migration: it receives the Sequelize instance and runs SQL. */
export type Migration = (params: { context: Sequelize }) => Promise<void>;
