import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxItems, PageItems } from '../../core/graphql-decorators';
import { expression, rowSelect, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { PageEnvelope, TOP_VALUES } from '../../core/pagination';
import { JSONObjectScalar, JSONScalar, UUIDScalar } from '../../core/scalars';
import { SPAN_WINDOW_DATA } from './traces.sql';

export enum SpanOrderBy {
  Timestamp = 'Timestamp',
  Duration = 'Duration',
  SpanName = 'SpanName',
}
registerEnumType(SpanOrderBy, {
  name: 'SpanOrderBy',
  description: 'How the spans of a trace are ordered.',
  valuesConfig: {
    Timestamp: { description: 'By start time.' },
    Duration: { description: 'By duration.' },
    SpanName: { description: 'By span name.' },
  },
});

export enum SpanOrderDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SpanOrderDirection, {
  name: 'SpanOrderDirection',
  description: 'Ascending or descending.',
  valuesConfig: { ASC: { description: 'Smallest or earliest first.' }, DESC: { description: 'Largest or latest first.' } },
});

@ObjectType('TraceSummary', { description: "A trace, summarised by its root span (decisions §15)." })
export class TraceSummary {
  @Field(() => String, { description: 'The trace id: 32 lowercase hex digits.' })
  trace_id: string;

  @Field(() => String, { description: "The root span's name." })
  name: string;

  @Field(() => String, { nullable: true, description: "The root span's `dreadnode.type` (task, evaluation, study, …); null when it has none." })
  span_type: string | null;

  @Field(() => UUIDScalar, { description: "The project the trace belongs to (its root's `dreadnode.project`, or the default project)." })
  project_id: string;

  @Field(() => Date, { description: 'When the root span started.' })
  start_time: Date;

  @Field(() => Date, { description: 'When the root span ended.' })
  end_time: Date;

  @Field(() => Float, { description: "The root span's duration in milliseconds." })
  duration_ms: number;

  @Field(() => Int, { description: 'Spans of the trace stored so far (pending-span copies never count).' })
  span_count: number;

  @Field(() => Int, { description: 'Spans of the trace whose status is ERROR.' })
  error_count: number;

  @Field(() => String, { description: '`error` when the root span or any span of the trace has status ERROR, `ok` otherwise.' })
  status: string;
}

@ObjectType('TraceDetail', { description: "A trace's summary with its root span's attributes." })
export class TraceDetail extends TraceSummary {
  @Field(() => JSONObjectScalar, { description: "The root span's attributes, values decoded as sent (JSON text the SDK encoded is read back as JSON)." })
  attributes: Record<string, unknown>;
}

@ObjectType('TraceListResponse', { description: 'A page of traces of a workspace, newest first.' })
export class TraceListResponse extends PageEnvelope {
  @Field(() => [TraceSummary], { description: 'The page of traces.' })
  @PageItems()
  traces: TraceSummary[];
}

@ObjectType('SpanResponse', { description: 'One span as received over OTLP.' })
export class SpanResponse {
  @Sql()
  @Field(() => String, { description: 'The trace id: 32 lowercase hex digits.' })
  trace_id: string;

  @Sql()
  @Field(() => String, { description: 'The span id: 16 lowercase hex digits.' })
  span_id: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The parent span's id; null for the trace's root." })
  parent_span_id: string | null;

  @Sql()
  @Field(() => String, { description: 'The span name.' })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The `dreadnode.type` attribute (task, study, trial, …); null when absent.' })
  span_type: string | null;

  @Sql()
  @Field(() => Int, { description: 'OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer.' })
  kind: number;

  @Sql(timestamp)
  @Field(() => Date, { description: 'Start time, to the millisecond (stored to the microsecond; `duration_ms` keeps the microseconds).' })
  start_time: Date;

  @Sql(timestamp)
  @Field(() => Date, { description: 'End time, to the millisecond (stored to the microsecond).' })
  end_time: Date;

  @Sql()
  @Field(() => Float, { description: 'Duration in milliseconds.' })
  duration_ms: number;

  @Sql()
  @Field(() => Int, { description: 'OTLP status code: 0 unset, 1 ok, 2 error.' })
  status_code: number;

  @Sql()
  @Field(() => String, { nullable: true, description: 'The status message, when the span set one.' })
  status_message: string | null;

  @Sql()
  @Field(() => JSONObjectScalar, { description: 'Span attributes (at most OTLP_MAX_ATTRIBUTES; longer strings cut at OTLP_MAX_ATTRIBUTE_LENGTH).' })
  attributes: Record<string, unknown>;

  @Sql()
  @Field(() => JSONObjectScalar, { description: "The exporting process's resource attributes (service.name, …)." })
  resource: Record<string, unknown>;

  @Sql()
  @Field(() => JSONScalar, { description: 'Span events: `[{name, timestamp, attributes}]`.' })
  events: unknown;
}

/** Spans as SpanResponse declares them, for reads in node: over `y`, the rows a read cut at the reply budget sends (withinBudgetSql). */
let selected: string | undefined;
export const spanSelect = () => (selected ??= rowSelect(SpanResponse, 'y'));

/** ClickHouse-style column types of a span, the `meta` of the spans reply. */
export const SPAN_META: { name: string; type: string }[] = [
  ['trace_id', 'String'],
  ['span_id', 'String'],
  ['parent_span_id', 'Nullable(String)'],
  ['name', 'String'],
  ['span_type', 'Nullable(String)'],
  ['kind', 'UInt8'],
  ['start_time', 'DateTime64(6)'],
  ['end_time', 'DateTime64(6)'],
  ['duration_ms', 'Float64'],
  ['status_code', 'UInt8'],
  ['status_message', 'Nullable(String)'],
  ['attributes', 'Map(String, String)'],
  ['resource', 'Map(String, String)'],
  ['events', 'Array(Tuple(String, DateTime64(6), Map(String, String)))'],
].map(([name, type]) => ({ name, type }));

@ObjectType('SpanColumn', { description: 'A column of the spans reply (its `meta`).' })
export class SpanColumn {
  @Field(() => String, { description: 'The key in each element of `data`.' })
  name: string;

  @Field(() => String, { description: 'Its type, ClickHouse-style (`String`, `DateTime64(6)`, `Float64`, `Map(String, String)`, …).' })
  type: string;
}

@ObjectType('TraceSpansResponse', { description: "A window of a trace's spans." })
export class TraceSpansResponse {
  @Sql(SPAN_WINDOW_DATA)
  @Field(() => [SpanResponse], { description: 'The spans, in the order asked for.' })
  @PageItems()
  data: SpanResponse[];

  @Sql(expression((r) => `cardinality(${r}.spans)`))
  @Field(() => Int, { description: 'How many spans `data` holds.' })
  rows: number;

  @Sql(expression(() => `'${JSON.stringify(SPAN_META)}'::json`))
  @Field(() => [SpanColumn], { description: 'The columns of each span.' })
  @MaxItems(20)
  meta: SpanColumn[];
}

@ObjectType('TraceStatsResponse', { description: 'Statistics of a set of spans: one trace, or every trace of an evaluation.' })
export class TraceStatsResponse {
  @Field(() => Int, { description: 'Spans stored.' })
  total_spans: number;

  @Field(() => Int, { description: 'Spans with status ERROR.' })
  error_spans: number;

  @Field(() => Float, { description: 'From the first start to the last end, in milliseconds (0 without spans).' })
  duration_ms: number;

  @Field(() => JSONObjectScalar, { description: `Span count per \`dreadnode.type\` (\`unknown\` for spans without one): the ${TOP_VALUES} most frequent types (ties by type).` })
  span_types: Record<string, number>;

  @Field(() => Date, { nullable: true, description: 'The earliest start; null without spans.' })
  first_start: Date | null;

  @Field(() => Date, { nullable: true, description: 'The latest end; null without spans.' })
  last_end: Date | null;
}

@ObjectType('EvaluationItemTraces', { description: "The traces of one evaluation item." })
export class EvaluationItemTraces {
  @Field(() => UUIDScalar, { description: 'The evaluation item.' })
  item_id: string;

  @Field(() => String, { nullable: true, description: "The item's task name (null for a dataset row or an item no longer stored)." })
  task_name: string | null;

  @Field(() => [String], { description: "Ids of the item's traces, earliest first (the first 100; the counts cover them all)." })
  @MaxItems(100)
  trace_ids: string[];

  @Field(() => Int, { description: 'Spans of those traces.' })
  span_count: number;

  @Field(() => Int, { description: 'Spans of those traces with status ERROR.' })
  error_count: number;

  @Field(() => Float, { description: "Sum of the traces' root durations, in milliseconds." })
  duration_ms: number;
}

@ObjectType('EvaluationTraceItemsResponse', { description: "An evaluation's traces per item." })
export class EvaluationTraceItemsResponse {
  @Field(() => [EvaluationItemTraces], { description: 'One entry per item that has traces, in item order (a window: `limit`, `offset`).' })
  @PageItems()
  items: EvaluationItemTraces[];
}

@ObjectType('TraceIngestResponse', { description: 'What an OTLP/JSON export stored.' })
export class TraceIngestResponse {
  @Field(() => Int, { description: 'Spans stored or already stored (a retried export counts again).' })
  accepted: number;

  @Field(() => Int, { description: 'Spans refused (see partialSuccess.errorMessage).' })
  rejected: number;
}
