import { config } from '../../config/config';
import { InvalidError, UnsupportedMediaTypeError } from '../../core/errors';
import type { BodyRoute } from '../../core/module';
import { encodeProtobufResponse, MalformedExportError } from './otlp';
import { authorizeIngest, ingestExport, type IngestResult } from './traces.ingest';

const PROTOBUF = 'application/x-protobuf';

/**
 * `POST /api/v1/org/{org}/otel/traces` (decisions §15): an OTLP/HTTP trace
 * export as protobuf or JSON, gzip or identity, or the SDK client's
 * `{traces: [export, …]}`. The caller is authenticated before a byte of the
 * body is read; the body is read within OTLP_MAX_BODY_BYTES as sent and
 * OTLP_MAX_INFLATED_BYTES inflated (413 past either). Replies as OTLP asks:
 * the protobuf ExportTraceServiceResponse (partial_success when spans were
 * refused) for protobuf, JSON otherwise; 400 for a payload that is not an
 * export (not retried), 429 with Retry-After from the request quota.
 */
export const otlpTracesRoute: BodyRoute = {
  method: 'POST',
  path: '/org/:org/otel/traces',
  label: 'otel_traces',
  openapi: {
    operationId: 'exportTraces',
    summary: 'Ingest an OTLP/HTTP trace export (protobuf or JSON, gzip or identity).',
    tags: ['traces'],
    requestBody: {
      required: true,
      content: {
        'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'A serialized ExportTraceServiceRequest' } },
        'application/json': {
          schema: {
            description: 'OTLP/JSON ExportTraceServiceRequest, or {traces: [ExportTraceServiceRequest, …]}',
            type: 'object',
            properties: { resourceSpans: { type: 'array', items: { type: 'object' } }, traces: { type: 'array', items: { type: 'object' } } },
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'Stored; spans refused one by one are counted (partial success)',
        content: {
          'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'A serialized ExportTraceServiceResponse' } },
          'application/json': {
            schema: {
              type: 'object',
              required: ['accepted', 'rejected'],
              properties: {
                accepted: { type: 'integer' },
                rejected: { type: 'integer' },
                partialSuccess: { type: 'object', properties: { rejectedSpans: { type: 'integer' }, errorMessage: { type: 'string' } } },
              },
            },
          },
        },
      },
      '413': { $ref: '#/components/responses/Error413' },
      '415': { $ref: '#/components/responses/Error415' },
    },
  },
  async handle({ req, params, context, body: readBody, reply }) {
    const ctx = await context({ org: params.org, workspace: null });
    const scope = await authorizeIngest(ctx, params.org);
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
    if (type !== PROTOBUF && type !== 'application/json') throw new UnsupportedMediaTypeError(`Content-Type ${type || '(none)'} is not an OTLP export; send ${PROTOBUF} or application/json`);
    const settings = config();
    const body = await readBody(settings.OTLP_MAX_BODY_BYTES, settings.OTLP_MAX_INFLATED_BYTES);
    let result: IngestResult;
    try {
      result = await ingestExport(scope, body, type === PROTOBUF ? 'protobuf' : 'json');
    } catch (error) {
      if (error instanceof MalformedExportError) throw new InvalidError(error.message);
      throw error;
    }
    if (type === PROTOBUF) return reply(200, encodeProtobufResponse(result.rejected, result.message), PROTOBUF);
    const partial = result.rejected ? { partialSuccess: { rejectedSpans: result.rejected, errorMessage: result.message } } : {};
    reply(200, JSON.stringify({ accepted: result.accepted, rejected: result.rejected, ...partial }), 'application/json; charset=utf-8');
  },
};
