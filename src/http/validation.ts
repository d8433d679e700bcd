import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

function createAjv(coerceTypes: boolean): Ajv {
  // removeAdditional stays off: a body with an unknown field is refused, so a typo never silently
  // drops a value. Bodies are never coerced: a number where a string belongs is an error.
  const ajv = new Ajv({ allErrors: false, coerceTypes, removeAdditional: false, useDefaults: true, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = createAjv(false);
// Query strings and path parameters are text on the wire; numbers there are coerced.
const urlAjv = createAjv(true);

export const schemaCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  const validate: ValidateFunction = ajv.compile(schema);
  return (data: unknown) =>
    validate(data) ? { value: data } : { error: Object.assign(new Error('invalid'), { validation: validate.errors }) };
};
