import type { ServerResponse } from 'node:http';
import { NotFoundError, toEnvelope, type AppError } from '../core/errors';
import { readAsset } from './static-assets';

/** The one place replies are written. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/** A JSON text already serialised (GraphQL and REST results). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The spec's error envelope with the error's status and headers (Retry-After, …). */
export function sendError(res: ServerResponse, error: AppError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, error.status, toEnvelope(error), { ...error.headers, ...extraHeaders });
}

export function sendHtml(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}

export function sendAsset(res: ServerResponse, name: string): void {
  const asset = readAsset(name);
  if (!asset) throw new NotFoundError('Asset');
  res.writeHead(200, { 'Content-Type': asset.contentType, 'Content-Length': asset.body.length, 'Cache-Control': 'public, max-age=3600' });
  res.end(asset.body);
}
