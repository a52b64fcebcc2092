import { defineScopes, WRITER_ROLES, type ScopeNames } from '../../core/authz/scopes';
import type { AppModule } from '../../core/module';
import { otlpTracesRoute } from './otlp-route';
import { ensureSpanPartitions, startPartitionUpkeep } from './span-partitions';
import { createTraceLoaders } from './traces.loaders';
import { AssessmentTracesResolver, EvaluationTracesResolver, TraceResolver, WorkspaceTracesResolver } from './traces.resolver';

const SCOPES = defineScopes({
  // Send spans over OTLP (owners and contributors; a workspace-limited key writes to its workspace).
  'traces:write': { roles: WRITER_ROLES },
});

/** Traces: OTLP span ingest (protobuf and JSON), trace reads, evaluation and assessment traces (decisions §14, §15). */
export const tracesModule: AppModule = {
  name: 'traces',
  resolvers: [TraceResolver, WorkspaceTracesResolver, EvaluationTracesResolver, AssessmentTracesResolver],
  loaders: createTraceLoaders,
  scopes: SCOPES,
  bodyRoutes: [otlpTracesRoute],
  async upkeep() {
    await ensureSpanPartitions(true);
    return startPartitionUpkeep();
  },
};

declare module '../../core/authz/scopes' {
  interface ScopeRegistry extends ScopeNames<typeof SCOPES> {}
}
