import { Type } from '@sinclair/typebox';
import { Timestamp, WorkspaceParams } from '../../http/common.schemas.js';
import { PERMISSIONS, type Permission as PermissionName } from './api-key.js';

const Permission = Type.Unsafe<PermissionName>({ type: 'string', enum: [...PERMISSIONS] });

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  permissions: Type.Array(Permission),
  recipient: Type.String({ description: 'Fixed to the workspace wallet.' }),
  prefix: Type.String({ description: 'The start of the key, to recognise it.' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});

export const CreatedApiKey = Type.Composite([
  ApiKeyView,
  Type.Object({ secret: Type.String({ description: 'The API key. Shown once: store it on your server now.' }) }),
]);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    permissions: Type.Array(Permission, { minItems: 1, maxItems: PERMISSIONS.length, uniqueItems: true }),
    recipient: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{40}$',
        description:
          'Leave it out: every key receives at the workspace wallet. Any other address is refused with 403 key_recipient_mismatch.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyParams = Type.Object({ ...WorkspaceParams.properties, keyId: Type.String({ maxLength: 64 }) });
