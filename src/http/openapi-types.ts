/**
 * The slice of OpenAPI 3.1 that the /docs page reads. Every field is optional and read-only because the
 * input is whatever @fastify/swagger produced; the renderer must cope with anything missing.
 */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly title?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly format?: string;
  readonly pattern?: string;
  readonly nullable?: boolean;
  readonly deprecated?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  /** OpenAPI 3.1 (JSON Schema 2020-12): sample values, the first one is shown. */
  readonly examples?: readonly unknown[];
  /** OpenAPI 3.0's singular form, still met in the wild. */
  readonly example?: unknown;
}

export interface ParameterObject {
  readonly name?: string;
  readonly in?: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: JsonSchema;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, ExampleObject>>;
}

export interface ExampleObject {
  readonly summary?: string;
  readonly description?: string;
  readonly value?: unknown;
}

export interface MediaTypeObject {
  readonly schema?: JsonSchema;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, ExampleObject>>;
}

export interface RequestBodyObject {
  readonly description?: string;
  readonly required?: boolean;
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}

export interface HeaderObject {
  readonly description?: string;
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

export interface ResponseObject {
  readonly description?: string;
  readonly headers?: Readonly<Record<string, HeaderObject>>;
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}

export interface OperationObject {
  readonly tags?: readonly string[];
  readonly summary?: string;
  readonly description?: string;
  readonly operationId?: string;
  readonly deprecated?: boolean;
  readonly parameters?: readonly ParameterObject[];
  readonly requestBody?: RequestBodyObject;
  readonly responses?: Readonly<Record<string, ResponseObject>>;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  /** Our extension: the API-key permission the route demands (copied from the route schema). */
  readonly 'x-permission'?: string;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = {
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: readonly ParameterObject[];
} & {
  readonly [M in HttpMethod]?: OperationObject;
};

export interface SecuritySchemeObject {
  readonly type?: string;
  readonly scheme?: string;
  readonly bearerFormat?: string;
  readonly name?: string;
  readonly in?: string;
  readonly description?: string;
}

export interface OpenApiDocument {
  readonly openapi?: string;
  readonly info?: { readonly title?: string; readonly version?: string; readonly description?: string };
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
  readonly servers?: readonly { readonly url?: string }[];
  readonly paths?: Readonly<Record<string, PathItemObject>>;
  /** Requests this service sends (webhook events), by event name; each holds one operation, usually `post`. */
  readonly webhooks?: Readonly<Record<string, PathItemObject>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes?: Readonly<Record<string, SecuritySchemeObject>>;
  };
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
}
