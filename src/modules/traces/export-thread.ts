import { PayloadTooLargeError, ValidationError, type ValidationItem } from '../../core/errors/app-error';
import { MalformedExportError } from './otlp';
import { prepareExport, type ExportTask, type PreparedExport } from './span-rows';

/**
 * What an ingest thread runs (export-threads.ts): one export prepared. The
 * errors a payload is refused with cross back as what rebuilds them
 * (`exportError`); any other error is a bug, and the pool rejects with it.
 */
export type ThreadReply = { prepared: PreparedExport } | { failure: ExportFailure };

interface ExportFailure {
  kind: 'malformed' | 'too_large' | 'invalid';
  message: string;
  errors?: ValidationItem[];
}

export default function prepareInThread(task: ExportTask): ThreadReply {
  try {
    return { prepared: prepareExport(task) };
  } catch (error) {
    if (error instanceof MalformedExportError) return { failure: { kind: 'malformed', message: error.message } };
    if (error instanceof PayloadTooLargeError) return { failure: { kind: 'too_large', message: error.message } };
    if (error instanceof ValidationError) return { failure: { kind: 'invalid', message: error.message, errors: error.errors ?? [] } };
    throw error;
  }
}

/** The error a thread's failure stands for. */
export function exportError({ kind, message, errors }: ExportFailure): Error {
  if (kind === 'malformed') return new MalformedExportError(message);
  if (kind === 'too_large') return new PayloadTooLargeError(message);
  return new ValidationError(errors ?? [], message);
}
