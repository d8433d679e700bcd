/**
 * The x402 `payment-identifier` extension (as @x402/extensions declares it): the 402 offers it, and a
 * client that takes it names each payment with an id of its own, the same on every retry. A payment sent
 * again under an id already seen for the order gets the first one's answer; the id on another payment is
 * refused (payment_identifier_conflict).
 */
export const PAYMENT_IDENTIFIER = 'payment-identifier';

const ID_PATTERN = /^[a-zA-Z0-9_-]{16,128}$/;

/** What the v2 402 carries in `extensions`: optional for the client. */
export const PAYMENT_IDENTIFIER_DECLARATION = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      required: { type: 'boolean' },
      id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' },
    },
    required: ['required'],
  },
} as const;

/**
 * The id a v2 payment payload names at `extensions["payment-identifier"].info.id`: undefined when it names
 * none, `{ invalid }` with the reason when it names one that is not 16–128 of [A-Za-z0-9_-].
 */
export function paymentIdentifierOf(root: Record<string, unknown> | null): string | { invalid: string } | undefined {
  const extensions = root?.extensions as Record<string, unknown> | undefined;
  const extension = extensions?.[PAYMENT_IDENTIFIER] as Record<string, unknown> | undefined;
  const id = (extension?.info as Record<string, unknown> | undefined)?.id;
  if (id === undefined) return undefined;
  if (typeof id === 'string' && ID_PATTERN.test(id)) return id;
  return { invalid: 'the payment identifier must be 16 to 128 letters, digits, "_" or "-"' };
}
