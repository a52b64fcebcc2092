import fs from 'node:fs';
import path from 'node:path';
import { OPERATIONS_DIR } from '../core/trusted-documents';

/**
 * Browser assets served from npm packages, so the GraphQL playground and the
 * docs page work with no internet access. Only these files are reachable.
 */
const ASSETS: Record<string, { pkg: string; file: string }> = {
  'graphiql/react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js' },
  'graphiql/react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js' },
  'graphiql/graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js' },
  'graphiql/graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css' },
  'swagger/swagger-ui-bundle.js': { pkg: 'swagger-ui-dist', file: 'swagger-ui-bundle.js' },
  'swagger/swagger-ui-standalone-preset.js': { pkg: 'swagger-ui-dist', file: 'swagger-ui-standalone-preset.js' },
  'swagger/swagger-ui.css': { pkg: 'swagger-ui-dist', file: 'swagger-ui.css' },
};

/** A body sent many times (a static asset, a page): its digest and compressed forms (by content coding), made once by http/respond.ts. */
export interface StaticBody {
  body: Buffer | string;
  digest?: string;
  encoded: Map<string, Buffer>;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const cache = new Map<string, StaticBody>();

/** A served asset: its body (with its digest and compressed forms, made once) and type. */
export function readAsset(name: string): { content: StaticBody; contentType: string } | null {
  const own = OWN_FILES[name];
  const asset = ASSETS[name];
  if (!own && !asset) return null;
  let content = cache.get(name);
  if (!content) {
    const body = own ? own.text() : fs.readFileSync(path.join(path.dirname(require.resolve(`${asset.pkg}/package.json`)), asset.file));
    content = { body, encoded: new Map() };
    cache.set(name, content);
  }
  return { content, contentType: TYPES[path.extname(own ? name : asset.file)] ?? 'application/octet-stream' };
}


/** The example operations (graphql/operations/*.graphql), one playground tab per file. */
function exampleTabs(): { query: string }[] {
  if (!fs.existsSync(OPERATIONS_DIR)) return [];
  return fs
    .readdirSync(OPERATIONS_DIR)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => ({ query: fs.readFileSync(path.join(OPERATIONS_DIR, file), 'utf8') }));
}

/**
 * The pages' own script and style, served as files so that the pages'
 * Content-Security-Policy allows scripts of this origin only (no inline script).
 */
const OWN_FILES: Record<string, { text: () => string }> = {
  'graphiql/playground.css': { text: () => 'body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }\n' },
  'graphiql/playground.js': { text: () => `(() => {
  const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  const headers = JSON.stringify({ Authorization: 'Bearer <access token or API key>' }, null, 2);
  const defaultTabs = ${JSON.stringify(exampleTabs())};
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher, defaultTabs, defaultEditorToolsVisibility: true, headers, shouldPersistHeaders: true }),
  );
})();
` },
  'swagger/docs.js': { text: () => `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
` },
};

const page = (html: string): StaticBody => ({ body: html, encoded: new Map() });

export const GRAPHIQL_PAGE = page(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Agent Platform · GraphQL playground</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.min.css" />
  <link rel="stylesheet" href="/graphql/assets/playground.css" />
</head>
<body>
  <div id="graphiql">Loading…</div>
  <script src="/graphql/assets/react.production.min.js"></script>
  <script src="/graphql/assets/react-dom.production.min.js"></script>
  <script src="/graphql/assets/graphiql.min.js"></script>
  <script src="/graphql/assets/playground.js"></script>
</body>
</html>`);

export const DOCS_PAGE = page(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Agent Platform API · docs</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/api/docs/assets/docs.js"></script>
</body>
</html>`);
