// Exports a red-team-shaped or evaluation-shaped trace through the official OpenTelemetry JavaScript SDK and
// its OTLP exporter (protobuf with gzip, or JSON), in a plain Node process: the exporters load their
// transport with a dynamic import, which jest's module sandbox does not run. Prints {traceId} as JSON.
// Usage: node otel-export.cjs '<json: {url, apiKey, format: "proto"|"json", shape: "redteam"|"evaluation", ...}>'
const { context, trace, SpanStatusCode } = require('@opentelemetry/api');
const { OTLPTraceExporter: ProtoExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { OTLPTraceExporter: JsonExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { CompressionAlgorithm } = require('@opentelemetry/otlp-exporter-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');

const args = JSON.parse(process.argv[2]);
const headers = { 'X-Api-Key': args.apiKey };
const exporter =
  args.format === 'proto' ? new ProtoExporter({ url: args.url, headers, compression: CompressionAlgorithm.GZIP }) : new JsonExporter({ url: args.url, headers });
const failures = [];
const recording = {
  export(spans, done) {
    exporter.export(spans, (result) => {
      if (result.code !== 0) failures.push(String(result.error && result.error.message));
      done(result);
    });
  },
  shutdown: () => exporter.shutdown(),
  forceFlush: () => exporter.forceFlush(),
};
const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'sdk-test' }), spanProcessors: [new SimpleSpanProcessor(recording)] });
const tracer = provider.getTracer('dreadnode');

function redTeam(root, rootCtx) {
  for (const attack of args.attacks) {
    const study = tracer.startSpan(
      `study ${attack.name}`,
      {
        attributes: {
          'dreadnode.type': 'study',
          'dreadnode.airt.assessment_id': args.assessmentId,
          'dreadnode.airt.attack_name': attack.name,
          'dreadnode.airt.goal': 'reveal the system prompt',
          'dreadnode.airt.goal_category': 'prompt_leak',
          'dreadnode.airt.category': 'jailbreak',
          'dreadnode.airt.asr': attack.asr,
          'dreadnode.airt.best_score': Math.max(...attack.trials.map((t) => t.score)),
          'dreadnode.airt.is_jailbreak': attack.jailbreak,
          // Values that are not string, number or boolean travel as JSON text (decisions §15).
          'dreadnode.airt.transforms': JSON.stringify(['base64', 'leetspeak']),
          'dreadnode.airt.target_model': 'model-x',
          'dreadnode.airt.sub_category': JSON.stringify(null),
        },
      },
      rootCtx,
    );
    const studyCtx = trace.setSpan(rootCtx, study);
    attack.trials.forEach((trial, index) => {
      tracer
        .startSpan(
          `trial ${index}`,
          {
            attributes: {
              'dreadnode.type': 'trial',
              'dreadnode.airt.candidate': `candidate ${index}`,
              'dreadnode.airt.response': `response ${index}`,
              'dreadnode.airt.judge_score': trial.score,
              'dreadnode.airt.is_jailbreak': trial.jailbreak,
              'dreadnode.airt.trial_status': 'finished',
              'dreadnode.airt.transforms': ['base64'],
            },
          },
          studyCtx,
        )
        .end();
    });
    study.end();
  }
}

function evaluation(root, rootCtx) {
  const child = tracer.startSpan('agent step', { attributes: { 'dreadnode.type': 'agent' } }, rootCtx);
  const tool = tracer.startSpan('tool call', { attributes: { 'dreadnode.type': 'tool' } }, trace.setSpan(rootCtx, child));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  tool.end();
  child.end();
}

(async () => {
  const rootAttributes =
    args.shape === 'evaluation'
      ? { 'dreadnode.type': 'evaluation', 'dreadnode.project': args.project, 'dreadnode.evaluation.id': args.evaluationId, 'dreadnode.evaluation.item_id': args.itemId }
      : { 'dreadnode.type': 'task', ...(args.project ? { 'dreadnode.project': args.project } : {}) };
  const root = tracer.startSpan(args.rootName || 'airt run', { attributes: rootAttributes });
  const rootCtx = trace.setSpan(context.active(), root);
  (args.shape === 'evaluation' ? evaluation : redTeam)(root, rootCtx);
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write(JSON.stringify({ traceId: root.spanContext().traceId, failures }));
})().catch((error) => {
  process.stderr.write(String(error && error.stack));
  process.exit(1);
});
