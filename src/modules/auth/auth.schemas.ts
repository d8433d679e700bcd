import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/common.schemas.js';

export const NonceResponse = Type.Object({
  nonce: Type.String({ description: 'Put it in the EIP-4361 message; valid 10 minutes, once.' }),
});

export const VerifyBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 4096, description: 'The EIP-4361 message the wallet signed.' }),
    signature: Type.String({
      pattern: '^0x[0-9a-fA-F]+$',
      maxLength: 4096,
      description: 'The wallet signature (personal_sign).',
    }),
  },
  { additionalProperties: false },
);

export const SessionResponse = Type.Object({
  address: Type.String({ description: 'The signed-in wallet (lowercase hex).' }),
  expiresAt: Timestamp,
});
