import { ValidateBy, type ValidationOptions } from 'class-validator';

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
