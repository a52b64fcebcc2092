import { AppError } from './app-error';

/** The spec's APIErrorPayload. */
export interface ErrorEnvelope {
  code: number;
  detail: string;
  errors: AppError['errors'];
  type: string;
}

export function toEnvelope(error: AppError): ErrorEnvelope {
  return { code: error.status, detail: error.message, errors: error.errors, type: error.type };
}
