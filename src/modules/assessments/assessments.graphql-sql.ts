/**
 * A span's message parts as AttackSpanResponse shows them (every default
 * filled), built by PostgreSQL from a jsonb column: the SQL of the
 * `*_parts` fields (declared with @Sql in assessments.types.ts).
 */
export const partsJson = (column: string) => `CASE WHEN jsonb_typeof(${column}) = 'array' THEN (
    SELECT coalesce(json_agg(json_build_object(
             'kind', coalesce(p.part->>'kind', ''), 'text', p.part->'text', 'caption', p.part->'caption',
             'transform', p.part->'transform', 'variant', p.part->'variant',
             'source', CASE WHEN jsonb_typeof(p.part->'source') = 'object' THEN json_build_object(
               'ref', coalesce(p.part->'source'->>'ref', 'artifact'),
               'artifact_oid', p.part->'source'->'artifact_oid',
               'byte_size', CASE WHEN jsonb_typeof(p.part->'source'->'byte_size') = 'number' THEN p.part->'source'->'byte_size' END,
               'detail', p.part->'source'->'detail', 'file_id', p.part->'source'->'file_id',
               'filename', p.part->'source'->'filename', 'media_type', p.part->'source'->'media_type',
               'url', p.part->'source'->'url') END) ORDER BY p.ord), '[]')
      FROM jsonb_array_elements(${column}) WITH ORDINALITY AS p(part, ord)) END`;

