import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * A character that shows: not whitespace (any kind), a format character (zero-width space, joiners, direction
 * marks), a control character, a combining mark (which shows only on another), nor a blank letter (the Hangul
 * fillers, the blank braille pattern).
 */
const VISIBLE = /[^\p{White_Space}\p{Cf}\p{Cc}\p{M}\u115f\u1160\u2800\u3164\uffa0]/u;

/**
 * A display name holds at least one visible character (422 `value_error`
 * otherwise): a name of spaces or zero-width characters meets a length rule
 * and shows as nothing in a list. Null, absent and empty values are the
 * other rules' to judge (an empty name is too short, once).
 */
export function Visible(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isVisible',
      validator: {
        validate: (value) => value == null || value === '' || (typeof value === 'string' && VISIBLE.test(value)),
        defaultMessage: () => 'must contain a visible character, not only spaces or invisible characters',
      },
    },
    { ...options, context: { type: 'value_error' } },
  );
}
