import fs from 'node:fs';
import path from 'node:path';

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

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const cache = new Map<string, Buffer>();

export function readAsset(name: string): { body: Buffer; contentType: string } | null {
  const asset = ASSETS[name];
  if (!asset) return null;
  let body = cache.get(name);
  if (!body) {
    const packageDir = path.dirname(require.resolve(`${asset.pkg}/package.json`));
    body = fs.readFileSync(path.join(packageDir, asset.file));
    cache.set(name, body);
  }
  return { body, contentType: TYPES[path.extname(asset.file)] ?? 'application/octet-stream' };
}

export function graphiqlPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Agent Platform · GraphQL playground</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.min.css" />
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading…</div>
  <script src="/graphql/assets/react.production.min.js"></script>
  <script src="/graphql/assets/react-dom.production.min.js"></script>
  <script src="/graphql/assets/graphiql.min.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    const defaultHeaders = JSON.stringify({ Authorization: 'Bearer <access token or API key>' }, null, 2);
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher, defaultEditorToolsVisibility: true, headers: defaultHeaders, shouldPersistHeaders: true }),
    );
  </script>
</body>
</html>`;
}

export function swaggerPage(): string {
  return `<!doctype html>
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
  <script>
    window.ui = SwaggerUIBundle({
      url: '/api/v1/openapi.json',
      dom_id: '#swagger-ui',
      validatorUrl: null,
      deepLinking: true,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
    });
  </script>
</body>
</html>`;
}
