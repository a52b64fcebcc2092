import crypto from 'node:crypto';
import type { EndpointRow } from '../../helpers/tenancy';

/** Session endpoints of the tenancy matrix (the order matters for the owner's run: freeze and delete come last). */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/facets', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/facets` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/:session_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}` },
  {
    method: 'GET',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript`,
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions`,
    body: () => ({ id: crypto.randomUUID(), model: 'test-model', visibility: 'workspace' }),
  },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/:session_id/trajectory', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/trajectory` },
  {
    method: 'PATCH',
    route: '/org/:org/ws/:workspace/sessions/:session_id',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}`,
    body: () => ({ title: 'Renamed session' }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript`,
    body: () => ({ messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }] }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/transcript/compact',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/transcript/compact`,
    body: () => ({ up_to_seq: 1, summary: { role: 'assistant', content: 'summary' } }),
  },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/rewind',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/rewind`,
    body: () => ({ from_seq: 1 }),
  },
  { method: 'POST', route: '/org/:org/ws/:workspace/sessions/:session_id/archive', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/archive` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/:session_id/unarchive',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/unarchive`,
  },
  { method: 'POST', route: '/org/:org/ws/:workspace/sessions/:session_id/freeze', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}/freeze` },
  { method: 'DELETE', route: '/org/:org/ws/:workspace/sessions/:session_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/${t.sessionId}` },
];
