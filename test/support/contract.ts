// Reads spec/openapi.json for tests: JSON Schema shapes to compare, and an ajv validator for live responses.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapi from '../../spec/openapi.json' with { type: 'json' };

type Json = Record<string, any>;
export const doc = openapi as Json;

export type Shape = {
  types: string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Shape>;
  required?: string[];
  items?: Shape;
  values?: Shape;
};

const deref = (schema: Json): Json =>
  schema?.$ref ? deref(doc.components.schemas[schema.$ref.split('/').pop()]) : schema;

/** What matters of a JSON Schema for agreement: types, enums, formats, bounds, fields and what is required. */
export function shape(input: Json | undefined): Shape | undefined {
  const schema = input && deref(input);
  if (
    !schema ||
    Object.keys(schema).filter((k) => !['description', 'example', 'default', '$schema'].includes(k)).length === 0
  )
    return undefined;
  const members = schema.anyOf ?? schema.oneOf ?? (schema.allOf ? undefined : [schema]);
  if (schema.allOf) {
    // A schema's allOf has a few members: merged one after another.
    const merged: Shape = { types: [] };
    for (const part of schema.allOf.map(shape) as Shape[])
      Object.assign(merged, part, { properties: { ...merged.properties, ...part.properties } });
    return merged;
  }
  const out: Shape = { types: [] };
  for (const raw of members) {
    const m = deref(raw);
    const types = m.type
      ? [m.type].flat()
      : m.enum
        ? [...new Set(m.enum.map((e: unknown) => (e === null ? 'null' : typeof e)))]
        : [];
    out.types.push(...(types as string[]));
    if (m.enum) out.enum = [...(out.enum ?? []), ...m.enum];
    for (const key of ['format', 'pattern', 'minimum', 'maximum'] as const)
      if (m[key] !== undefined) (out as Json)[key] = m[key];
    if (m.properties) {
      out.properties = Object.fromEntries(Object.entries(m.properties).map(([k, v]) => [k, shape(v as Json)!]));
      out.required = [...(m.required ?? [])].sort();
    }
    if (m.items) out.items = shape(m.items);
    if (m.additionalProperties && typeof m.additionalProperties === 'object')
      out.values = shape(m.additionalProperties);
  }
  out.types = [...new Set(out.types)].sort();
  if (out.enum) out.enum = [...out.enum].sort();
  if (!out.items) delete out.items;
  return JSON.parse(JSON.stringify(out));
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...doc, $id: 'openapi.json' });

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Validates a body against the document's schema for this operation, status and content type. */
export function validateResponse(
  path: string,
  method: string,
  status: number,
  body: unknown,
  contentType = 'application/json',
) {
  const key = `${method} ${path} ${status} ${contentType}`;
  let validate = compiled.get(key);
  if (!validate) {
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`no operation ${method} ${path} in the document`);
    let response = operation.responses[String(status)];
    if (!response) throw new Error(`${method} ${path} documents no ${status}`);
    if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
    const schema = response.content?.[contentType]?.schema;
    if (!schema) throw new Error(`${method} ${path} ${status} documents no ${contentType}`);
    // The schema's $refs point into the document, which ajv knows as openapi.json.
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"openapi.json#/components')));
    compiled.set(key, validate);
  }
  if (!validate(body))
    throw new Error(`${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
