/**
 * Validates HTTP bodies against Qdrant's own OpenAPI document (../shared/qdrant/openapi-v1.18.x.json).
 *
 * OpenAPI 3.0 `nullable` is not JSON Schema: it is translated first (a schema that is only
 * `{nullable: true}` means null; any other nullable schema means "that schema or null"). Without the
 * translation, `anyOf: [{$ref: X}, {nullable: true}]`, the spec's idiom for every optional field,
 * accepts anything and wrong bodies pass.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";

/** Where the spec lives: ../shared/qdrant beside the repository root. */
export const QDRANT_SPEC_PATH = fileURLToPath(new URL("../../../shared/qdrant/openapi-v1.18.x.json", import.meta.url));

export function qdrantSpecAvailable(): boolean {
  return existsSync(QDRANT_SPEC_PATH);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keywords that describe a schema without constraining it: they stay outside the null alternative. */
const ANNOTATIONS = new Set(["description", "default", "example", "deprecated", "title"]);
const SCHEMA_ROOT = "qdrant-openapi";
/** Keywords whose value is a map of name -> schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "definitions"]);
/** Keywords whose value is one schema. */
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not"]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf"]);

/**
 * OpenAPI 3.0 -> JSON Schema: nullable translated, `#/components/schemas/X` refs pointed at our root.
 * Walks schema positions only (a property may be named `example` or `default`; its value is still a schema).
 */
export function translateSchema(schema: Json, options: { translateNullable: boolean }): Json {
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string") {
      out[key] = value.replace("#/components/schemas/", `${SCHEMA_ROOT}#/definitions/`);
    } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = translateSchemaMap(value, options);
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = translateSchema(value, options);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item) => translateSchema(item, options));
    } else {
      out[key] = value;
    }
  }
  if (!("nullable" in out)) return out;
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!options.translateNullable || !nullable) return out;

  const annotations: JsonObject = {};
  const constraints: JsonObject = {};
  for (const [key, value] of Object.entries(out)) (ANNOTATIONS.has(key) ? annotations : constraints)[key] = value;
  if (Object.keys(constraints).length === 0) return { ...annotations, type: "null" };
  return { ...annotations, anyOf: [constraints, { type: "null" }] };
}

export function translateSchemaMap(schemas: JsonObject, options: { translateNullable: boolean }): JsonObject {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, translateSchema(schema, options)]));
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  operationId: string;
  /** Compiled on first use: compiling all ~80 operations up front takes seconds. */
  validateBody: () => ValidateFunction | undefined;
  validateResponse: () => ValidateFunction | undefined;
}

function lazyCompile(ajv: Ajv, schema: Json | undefined, options: { translateNullable: boolean }): () => ValidateFunction | undefined {
  let compiled: ValidateFunction | undefined;
  return () => {
    if (schema === undefined) return undefined;
    compiled ??= ajv.compile(translateSchema(schema, options) as JsonObject);
    return compiled;
  };
}

export interface MatchedOperation {
  operationId: string;
  template: string;
  params: Record<string, string>;
}

const UINT_LIMITS: Record<string, [number, number]> = {
  uint: [0, Number.MAX_SAFE_INTEGER],
  uint8: [0, 255],
  uint32: [0, 0xffff_ffff],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** Loads the spec once and answers: which operation is this request, and are its body / response valid? */
export class QdrantSpec {
  private readonly operations: Operation[] = [];

  constructor(document: JsonObject, options: { translateNullable: boolean } = { translateNullable: true }) {
    // strict: unknown keywords or formats in the spec are errors, so nothing is silently not checked.
    const ajv = new Ajv({ strict: true, strictTypes: false, strictTuples: false, allErrors: false });
    ajv.addKeyword({ keyword: "example", schemaType: ["string", "number", "boolean", "object", "array", "null"] });
    for (const [format, [min, max]] of Object.entries(UINT_LIMITS)) {
      ajv.addFormat(format, { type: "number", validate: (value: number) => Number.isInteger(value) && value >= min && value <= max });
    }
    for (const format of ["float", "double"]) ajv.addFormat(format, { type: "number", validate: (value: number) => Number.isFinite(value) });
    ajv.addFormat("uuid", /^(?:urn:uuid:)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
    ajv.addFormat("date-time", { type: "string", validate: (value: string) => !Number.isNaN(Date.parse(value)) });
    ajv.addFormat("partial-date-time", { type: "string", validate: (value: string) => !Number.isNaN(Date.parse(value)) });
    ajv.addFormat("uri", { type: "string", validate: (value: string) => URL.canParse(value) });

    const components = document.components;
    const schemas = isObject(components) ? components.schemas : undefined;
    if (!isObject(schemas)) throw new Error("spec has no components.schemas");
    ajv.addSchema({ $id: SCHEMA_ROOT, definitions: translateSchemaMap(schemas, options) });

    const paths = document.paths;
    if (!isObject(paths)) throw new Error("spec has no paths");
    for (const [template, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!isObject(operation) || typeof operation.operationId !== "string") continue;
        const bodySchema = jsonSchemaOf(operation.requestBody);
        const responses = operation.responses;
        const responseSchema = isObject(responses) ? jsonSchemaOf(responses["200"]) : undefined;
        const segments = template.split("/").filter(Boolean);
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${template.replace(/\{([^}]+)\}/g, (_, name: string) => `(?<${name}>[^/]+)`)}$`),
          literalSegments: segments.filter((segment) => !segment.startsWith("{")).length,
          operationId: operation.operationId,
          validateBody: lazyCompile(ajv, bodySchema, options),
          validateResponse: lazyCompile(ajv, responseSchema, options),
        });
      }
    }
    // `/points/scroll` must win over `/points/{id}`: most literal segments first.
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  static load(options?: { translateNullable: boolean }): QdrantSpec {
    return new QdrantSpec(JSON.parse(readFileSync(QDRANT_SPEC_PATH, "utf8")) as JsonObject, options);
  }

  match(method: string, path: string): MatchedOperation | undefined {
    for (const operation of this.operations) {
      if (operation.method !== method.toUpperCase()) continue;
      const found = operation.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(found.groups ?? {})) params[name] = decodeURIComponent(value);
      return { operationId: operation.operationId, template: operation.template, params };
    }
    return undefined;
  }

  /** Errors of a request body against the operation's requestBody schema; [] when valid. */
  checkRequestBody(operationId: string, body: unknown): string[] {
    const validate = this.find(operationId).validateBody();
    if (!validate) return body === undefined ? [] : [`${operationId} takes no request body`];
    return validate(body) ? [] : describeErrors(validate);
  }

  /** Errors of a 200 response body against the spec; [] when valid. */
  checkResponseBody(operationId: string, body: unknown): string[] {
    const validate = this.find(operationId).validateResponse();
    if (!validate) return [];
    return validate(body) ? [] : describeErrors(validate);
  }

  private find(operationId: string): Operation {
    const operation = this.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) throw new Error(`no operation ${operationId} in the spec`);
    return operation;
  }
}

function jsonSchemaOf(container: Json | undefined): Json | undefined {
  if (!isObject(container)) return undefined;
  const content = container.content;
  if (!isObject(content)) return undefined;
  const json = content["application/json"];
  return isObject(json) ? json.schema : undefined;
}

function describeErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((error) => `${error.instancePath || "(body)"} ${error.message ?? "is invalid"} ${JSON.stringify(error.params)}`);
}
