import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * The most a free-form JSON value kept with a row (an assessment's
 * configurations, an evaluation's task configuration, a judge's model
 * parameters, a group's metadata) may take as JSON text. A list reply reads
 * a page of such rows, and parses each one whole before the reply's size is
 * known: 100 rows of a megabyte each were 100 MB parsed for one request.
 */
export const MAX_FREE_FORM_JSON_BYTES = 64 * 1024;

/** The bound of free-form JSON as a field's description says it. */
export const FREE_FORM_JSON_LIMIT = `at most ${MAX_FREE_FORM_JSON_BYTES / 1024} KiB as JSON`;

/**
 * A free-form JSON value whose compact text is at most `max` bytes (422
 * `too_long` past it): rows that list replies carry, other tenants' lists of
 * public artifacts included, stay small.
 */
export function MaxJsonBytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxJsonBytes',
      constraints: [max],
      validator: {
        validate: (value) => value === undefined || value === null || Buffer.byteLength(JSON.stringify(value) ?? '') <= max,
        defaultMessage: () => `must be at most ${max} bytes as JSON`,
      },
    },
    { ...options, context: { type: 'too_long' } },
  );
}

/** Free-form JSON kept with a row that a list reads: at most MAX_FREE_FORM_JSON_BYTES. */
export const FreeFormJson = (options?: ValidationOptions): PropertyDecorator => MaxJsonBytes(MAX_FREE_FORM_JSON_BYTES, options);
