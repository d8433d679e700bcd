import type { ErrorCode } from '../shared/errors.js';
import { errorExamplesByStatus } from './error-examples.js';

/** A request and its success answer, as the API document shows them (values the schemas accept). */
export interface OperationExamples {
  /** The JSON body, for operations that take one. */
  readonly request?: unknown;
  /** The body of the success answer; a string for a non-JSON one (CSV). Omitted for an empty answer. */
  readonly response?: unknown;
  /** A line on what the request example does, when the operation's summary does not say it. */
  readonly summary?: string;
}

/** What the API document says of an operation beyond its schemas: the errors it answers and examples. */
export interface OperationDocs {
  /** Every code the operation can answer (its guards' included); the error statuses derive from these. */
  readonly errors: readonly ErrorCode[];
  readonly examples?: OperationExamples;
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
}

const ERROR_MEDIA = 'application/json';

/**
 * Puts each operation's examples on its media types, OpenAPI 3.1's own places: the request example on
 * `requestBody.content[…].examples`, the success example on its 2xx, and under each error status one named
 * example per code the operation answers (two 400s with different codes both show). Operations without
 * docs are left as they are; the examples test names them.
 */
export function addOperationExamples<D extends object>(
  document: D,
  docsOf: (operationId: string) => OperationDocs | undefined,
): D {
  for (const item of Object.values((document as Document).paths ?? {})) {
    for (const operation of Object.values(item)) {
      const docs = operation.operationId === undefined ? undefined : docsOf(operation.operationId);
      if (docs) describeOperation(operation, docs);
    }
  }
  return document;
}

function describeOperation(operation: Operation, docs: OperationDocs): void {
  const { examples } = docs;
  const summary = examples?.summary ?? operation.summary ?? 'Example';
  if (examples?.request !== undefined) {
    for (const media of Object.values(operation.requestBody?.content ?? {}))
      media.examples = { example: { summary, value: examples.request } };
  }
  const errors = errorExamplesByStatus(docs.errors);
  const success = Object.keys(operation.responses ?? {}).find((status) => /^2\d\d$/.test(status));
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (status === success && examples?.response !== undefined) {
      for (const media of Object.values(response.content ?? {}))
        media.examples = { example: { summary, value: examples.response } };
    }
    const code = Number(status);
    if (code < 400) continue;
    const named = errors.get(code);
    if (!named) continue;
    // Errors are JSON whatever the success answer is (a CSV export's 400 included).
    const schema = Object.values(response.content ?? {})[0]?.schema;
    response.content = { [ERROR_MEDIA]: { schema, examples: named } };
  }
}
