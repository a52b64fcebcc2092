import { Extensions, InputType } from 'type-graphql';

/**
 * Marks a class as a GraphQL input type of the API and remembers the class, so
 * the REST layer can build instances for class-validator from plain bodies.
 * `strict` inputs reject unknown keys (422 extra_forbidden) instead of
 * ignoring them.
 */
const inputClasses = new Map<string, new () => object>();

export function ApiInput(name: string, options: { strict?: boolean; description?: string; example?: Record<string, unknown> } = {}): ClassDecorator {
  return (target) => {
    inputClasses.set(name, target as unknown as new () => object);
    // `example`: a valid body, shown in the OpenAPI document (a test validates each against its own schema).
    Extensions({ strict: options.strict ?? false, ...(options.example ? { example: options.example } : {}) })(target);
    InputType(name, { description: options.description })(target);
  };
}

/** Whether an input type rejects unknown keys on REST (`strict`): what the coercion checks and what the OpenAPI document says (`additionalProperties: false`). */
export function rejectsUnknownKeys(type: { extensions: Readonly<Record<string, unknown>> | null | undefined }): boolean {
  return Boolean(type.extensions?.strict);
}

export function inputClass(name: string): (new () => object) | undefined {
  return inputClasses.get(name);
}

export function isRegisteredInput(target: unknown): boolean {
  for (const value of inputClasses.values()) if (value === target) return true;
  return false;
}
