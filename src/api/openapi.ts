/**
 * OpenAPI 3 from zod. A small converter covering the zod types the API uses (objects, scalars
 * with their bounds, enums, literals, arrays, records, unions, optional/nullable/default,
 * effects, lazy); schemas with a `.describe('Name')` of one capitalised word become named
 * components referenced with `$ref`, which also makes recursive schemas (the queue tree) finite.
 */
import { z, type ZodTypeAny } from 'zod';

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
      case z.ZodFirstPartyTypeKind.ZodLiteral:
        return { enum: [(s as z.ZodLiteral<unknown>)._def.value] };
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
      case z.ZodFirstPartyTypeKind.ZodNullable:
      {
        // OpenAPI 3.0 style: `nullable`, wrapped in allOf when the inner schema is a $ref.
        const inner = conv((s as z.ZodNullable<ZodTypeAny>)._def.innerType);
        return inner.$ref ? { allOf: [inner], nullable: true } : { ...inner, nullable: true };
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
  /** OpenAPI-style path (`/v1/policy`). */
  readonly path: string;
  readonly summary: string;
  readonly tags?: string[];
  readonly query?: z.AnyZodObject;
  readonly body?: ZodTypeAny;
  /** Response schemas by status; a string means a text/plain body with that description. */
  readonly responses: Readonly<Record<number, ZodTypeAny | string>>;
  /** Answers without a bearer token (the probes). */
  readonly open?: boolean;
}

export function buildOpenApi(routes: readonly ApiRoute[], info: { title: string; version: string; description?: string }): JsonSchema {
  const conv = new SchemaConverter();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op: Record<string, unknown> = { summary: r.summary, operationId: `${r.method}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}` };
    if (r.tags) op.tags = r.tags;
    if (r.open) op.security = [];
    const q = r.query;
    if (q) {
      op.parameters = Object.entries(q.shape as Record<string, ZodTypeAny>).map(([name, s]) => {
        const schema = conv.convert(s, 'input');
        const description = s.description ?? (s instanceof z.ZodOptional || s instanceof z.ZodDefault ? (s._def.innerType as ZodTypeAny).description : undefined);
        return { name, in: 'query', required: !(s.isOptional() || s instanceof z.ZodDefault), schema, ...(description ? { description } : {}) };
      });
    }
    if (r.body) {
      op.requestBody = { required: !r.body.isOptional(), content: { 'application/json': { schema: conv.convert(r.body, 'input') } } };
    }
    op.responses = Object.fromEntries(
      Object.entries(r.responses).map(([status, s]) => [
        status,
        typeof s === 'string'
          ? { description: s, content: { 'text/plain': { schema: { type: 'string' } } } }
          : { description: s.description ?? `HTTP ${status}`, content: { 'application/json': { schema: conv.convert(s, 'output') } } },
      ]),
    );
    (paths[r.path] ??= {})[r.method] = op;
  }
  const sortedComponents = Object.fromEntries(Object.entries(conv.components).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.0.3',
    info,
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: sortedComponents,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token of role read, operate or admin (see the operator guide)' } },
    },
  };
}
