/**
 * OpenAPI 3.1 from zod. A small converter covering the zod types the API uses (objects, scalars
 * with their bounds, enums, literals, arrays, records, unions, optional/nullable/default,
 * effects, lazy) into JSON Schema 2020-12, the dialect of OpenAPI 3.1; schemas with a
 * `.describe('Name')` of one capitalised word become named components referenced with `$ref`,
 * which also makes recursive schemas (the queue tree) finite.
 */
import { z, type ZodTypeAny } from 'zod';
import type { Role } from './auth.js';

export type JsonSchema = Record<string, unknown>;

const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};
  private readonly inProgress = new Set<string>();

  /** The JSON schema of `s`; named schemas are emitted once under components. */
  convert(s: ZodTypeAny, io: 'input' | 'output' = 'output'): JsonSchema {
    const name = s.description;
    // Wrappers (optional, nullable, default) inherit the inner schema's description: the name
    // belongs to the inner schema.
    const wrapped = s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault;
    if (wrapped && (s._def.innerType as ZodTypeAny).description === name) return this.inner(s, io);
    if (name && COMPONENT_NAME.test(name)) {
      const key = io === 'input' && this.differsByIo(s) ? `${name}Input` : name;
      if (!this.components[key] && !this.inProgress.has(key)) {
        this.inProgress.add(key);
        this.components[key] = this.inner(s, io);
        this.inProgress.delete(key);
      }
      return { $ref: `#/components/schemas/${key}` };
    }
    const out = this.inner(s, io);
    if (name) out.description = name;
    return out;
  }

  /** Defaults make a field optional on input but present on output. */
  private differsByIo(s: ZodTypeAny): boolean {
    return JSON.stringify(this.inner(s, 'input', true)) !== JSON.stringify(this.inner(s, 'output', true));
  }

  private inner(s: ZodTypeAny, io: 'input' | 'output', probe = false): JsonSchema {
    const conv = probe ? (x: ZodTypeAny) => new SchemaConverter().inner(x, io, true) : (x: ZodTypeAny) => this.convert(x, io);
    const def = s._def as { typeName: z.ZodFirstPartyTypeKind } & Record<string, unknown>;
    switch (def.typeName) {
      case z.ZodFirstPartyTypeKind.ZodString: {
        const out: JsonSchema = { type: 'string' };
        for (const c of (s as z.ZodString)._def.checks) {
          if (c.kind === 'min') out.minLength = c.value;
          else if (c.kind === 'max') out.maxLength = c.value;
          else if (c.kind === 'regex') out.pattern = c.regex.source;
        }
        return out;
      }
      case z.ZodFirstPartyTypeKind.ZodNumber: {
        const out: JsonSchema = { type: 'number' };
        for (const c of (s as z.ZodNumber)._def.checks) {
          if (c.kind === 'int') out.type = 'integer';
          else if (c.kind === 'min') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
          else if (c.kind === 'max') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
        }
        return out;
      }
      case z.ZodFirstPartyTypeKind.ZodBoolean:
        return { type: 'boolean' };
      case z.ZodFirstPartyTypeKind.ZodUnknown:
      case z.ZodFirstPartyTypeKind.ZodAny:
        return {};
      case z.ZodFirstPartyTypeKind.ZodLiteral: {
        const value = (s as z.ZodLiteral<unknown>)._def.value;
        return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? { type: typeof value, enum: [value] } : { enum: [value] };
      }
      case z.ZodFirstPartyTypeKind.ZodEnum:
        return { type: 'string', enum: [...(s as z.ZodEnum<[string]>)._def.values] };
      case z.ZodFirstPartyTypeKind.ZodArray:
        return { type: 'array', items: conv((s as z.ZodArray<ZodTypeAny>)._def.type) };
      case z.ZodFirstPartyTypeKind.ZodRecord:
        return { type: 'object', additionalProperties: conv((s as z.ZodRecord)._def.valueType) };
      case z.ZodFirstPartyTypeKind.ZodObject: {
        const o = s as z.AnyZodObject;
        const shape = o.shape as Record<string, ZodTypeAny>;
        const properties: Record<string, JsonSchema> = {};
        const required: string[] = [];
        for (const [k, v] of Object.entries(shape)) {
          properties[k] = conv(v);
          if (!this.isOptional(v, io)) required.push(k);
        }
        const out: JsonSchema = { type: 'object', properties };
        if (required.length) out.required = required;
        if (o._def.unknownKeys === 'strict') out.additionalProperties = false;
        return out;
      }
      case z.ZodFirstPartyTypeKind.ZodUnion:
        return { anyOf: (s as z.ZodUnion<[ZodTypeAny]>)._def.options.map(conv) };
      case z.ZodFirstPartyTypeKind.ZodDiscriminatedUnion: {
        const du = s as z.ZodDiscriminatedUnion<string, z.AnyZodObject[]>;
        return { oneOf: du.options.map(conv) };
      }
      case z.ZodFirstPartyTypeKind.ZodOptional:
        return conv((s as z.ZodOptional<ZodTypeAny>)._def.innerType);
      case z.ZodFirstPartyTypeKind.ZodNullable: {
        // JSON Schema 2020-12 has no `nullable`: a plain type gains 'null', anything else is one of two.
        const inner = conv((s as z.ZodNullable<ZodTypeAny>)._def.innerType);
        if (typeof inner.type === 'string' && inner.enum === undefined && inner.$ref === undefined) return { ...inner, type: [inner.type, 'null'] };
        return { anyOf: [inner, { type: 'null' }] };
      }
      case z.ZodFirstPartyTypeKind.ZodDefault: {
        const d = s as z.ZodDefault<ZodTypeAny>;
        return { ...conv(d._def.innerType), default: d._def.defaultValue() };
      }
      case z.ZodFirstPartyTypeKind.ZodEffects: {
        const e = s as z.ZodEffects<ZodTypeAny>;
        // A transform's output type is not knowable from zod; describe the input.
        return conv(e._def.schema);
      }
      case z.ZodFirstPartyTypeKind.ZodLazy:
        return conv((s as z.ZodLazy<ZodTypeAny>)._def.getter());
      default:
        throw new Error(`zod type ${def.typeName} not supported by the OpenAPI converter`);
    }
  }

  private isOptional(v: ZodTypeAny, io: 'input' | 'output'): boolean {
    if (v instanceof z.ZodOptional) return true;
    if (v instanceof z.ZodDefault) return io === 'input';
    if (v instanceof z.ZodUnknown || v instanceof z.ZodAny) return true;
    if (v instanceof z.ZodEffects) return this.isOptional(v._def.schema, io);
    return false;
  }
}

export interface ApiRoute {
  readonly method: 'get' | 'put' | 'post' | 'delete';
  /** OpenAPI-style path (`/v1/policy`, `/v1/bopf/queues/{name}`). */
  readonly path: string;
  readonly summary: string;
  readonly tags?: string[];
  /** Every `{name}` of the path, with its schema. */
  readonly params?: z.AnyZodObject;
  readonly query?: z.AnyZodObject;
  readonly body?: ZodTypeAny;
  /** Media types the body may come in (default application/json). */
  readonly bodyTypes?: readonly string[];
  /** A body the route accepts, shown in the document (and checked against `body` by the tests). */
  readonly bodyExample?: unknown;
  /** Response schemas by status; a string means a text/plain body with that description. */
  readonly responses: Readonly<Record<number, ZodTypeAny | string>>;
  /** Answers without a bearer token (the probes). */
  readonly open?: boolean;
  /** The least role that may call it, as the route declares it (default: read for GET, operate otherwise). */
  readonly role?: Role;
}

/** A shared error answer: responses with the error schema at this status refer to it by name. */
export interface ErrorResponse {
  readonly name: string;
  readonly description: string;
  readonly headers?: Record<string, JsonSchema>;
}

export interface OpenApiOptions {
  readonly info: { title: string; version: string; description?: string; license?: JsonSchema };
  readonly servers: readonly { url: string; description?: string }[];
  readonly tags: readonly { name: string; description: string }[];
  /** The error body; where a route answers it at a status of `errorResponses`, the shared response is used. */
  readonly errorBody: ZodTypeAny;
  readonly errorResponses: Readonly<Record<number, ErrorResponse>>;
  readonly securityScheme: { name: string; scheme: JsonSchema };
  readonly roleOf: (r: ApiRoute) => Role;
}

const PATH_PARAM = /\{([^}]+)\}/g;

export function buildOpenApi(routes: readonly ApiRoute[], o: OpenApiOptions): JsonSchema {
  const conv = new SchemaConverter();
  const paths: Record<string, Record<string, unknown>> = {};
  const usedResponses = new Set<number>();
  const parameters = (where: 'path' | 'query', obj: z.AnyZodObject) =>
    Object.entries(obj.shape as Record<string, ZodTypeAny>).map(([name, s]) => {
      const schema = conv.convert(s, 'input');
      const description = s.description ?? (s instanceof z.ZodOptional || s instanceof z.ZodDefault ? (s._def.innerType as ZodTypeAny).description : undefined);
      const required = where === 'path' || !(s.isOptional() || s instanceof z.ZodDefault);
      return { name, in: where, required, schema, ...(description ? { description } : {}) };
    });
  for (const r of routes) {
    const op: Record<string, unknown> = {
      summary: r.summary,
      operationId: `${r.method}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    };
    if (r.tags) op.tags = r.tags;
    // An open route takes a token too (it is then audited under its name): no credential or any role.
    op.security = r.open ? [{}, { [o.securityScheme.name]: [o.roleOf(r)] }] : [{ [o.securityScheme.name]: [o.roleOf(r)] }];
    const inPath = [...r.path.matchAll(PATH_PARAM)].map((m) => m[1]!);
    const declared = Object.keys(r.params?.shape ?? {});
    if (inPath.join() !== declared.join())
      throw new Error(
        `${r.method.toUpperCase()} ${r.path}: params must declare exactly ${inPath.join(', ') || 'nothing'}, in order (has ${declared.join(', ') || 'nothing'})`,
      );
    const params = [...(r.params ? parameters('path', r.params) : []), ...(r.query ? parameters('query', r.query) : [])];
    if (params.length) op.parameters = params;
    if (r.body) {
      const schema = conv.convert(r.body, 'input');
      const media = { schema, ...(r.bodyExample !== undefined ? { example: r.bodyExample } : {}) };
      op.requestBody = { required: !r.body.isOptional(), content: Object.fromEntries((r.bodyTypes ?? ['application/json']).map((t) => [t, media])) };
    }
    op.responses = Object.fromEntries(
      Object.entries(r.responses).map(([key, s]) => {
        const status = Number(key);
        if (s === o.errorBody && o.errorResponses[status]) {
          usedResponses.add(status);
          return [key, { $ref: `#/components/responses/${o.errorResponses[status].name}` }];
        }
        return [
          key,
          typeof s === 'string'
            ? status === 204
              ? { description: s }
              : { description: s, content: { 'text/plain': { schema: { type: 'string' } } } }
            : { description: s.description ?? `HTTP ${status}`, content: { 'application/json': { schema: conv.convert(s, 'output') } } },
        ];
      }),
    );
    (paths[r.path] ??= {})[r.method] = op;
  }
  const errorRef = usedResponses.size ? conv.convert(o.errorBody, 'output') : undefined;
  const responses = Object.fromEntries(
    [...usedResponses]
      .sort((a, b) => a - b)
      .map((status) => {
        const e = o.errorResponses[status]!;
        return [e.name, { description: e.description, ...(e.headers ? { headers: e.headers } : {}), content: { 'application/json': { schema: errorRef } } }];
      }),
  );
  const sortedComponents = Object.fromEntries(Object.entries(conv.components).sort(([a], [b]) => a.localeCompare(b)));
  const usedTags = [...new Set(routes.flatMap((r) => r.tags ?? []))];
  const tags = [
    ...o.tags.filter((t) => usedTags.includes(t.name)),
    ...usedTags.filter((n) => !o.tags.some((t) => t.name === n)).map((name) => ({ name, description: `Routes of ${name}` })),
  ];
  return {
    openapi: '3.1.0',
    info: o.info,
    servers: o.servers,
    tags,
    security: [{ [o.securityScheme.name]: [] }],
    paths,
    components: {
      schemas: sortedComponents,
      responses,
      securitySchemes: { [o.securityScheme.name]: o.securityScheme.scheme },
    },
  };
}
