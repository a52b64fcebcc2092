import type { Model, ModelStatic } from 'sequelize';

/**
 * Helpers for statements that read several tables at once: the select list
 * of a model's columns under a prefix (`o.id AS "o.id"`, nested back by
 * Sequelize's `nest: true`), and a model instance built from such a row.
 */
export function prefixedColumns(model: ModelStatic<Model>, alias: string): string {
  return Object.values(model.getAttributes())
    .map((attribute) => `${alias}.${attribute.field} AS "${alias}.${attribute.field}"`)
    .join(', ');
}

/** A persisted instance from a row keyed by column names (null when the row is all null, as from an unmatched LEFT JOIN). */
export function modelFromRow<M extends Model>(model: ModelStatic<M>, row: Record<string, unknown> | null | undefined): M | null {
  if (!row || Object.values(row).every((value) => value === null)) return null;
  const values: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(model.getAttributes())) values[name] = row[attribute.field ?? name];
  return model.build(values as never, { raw: true, isNewRecord: false });
}
