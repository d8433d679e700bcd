import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/common.schemas.js';
import { NAME_MAX_CHARS, PORTAL_DESCRIPTION_MAX_CHARS } from './workspace.js';

export const WorkspaceView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  wallet: Type.String({ description: 'The receiving address: the wallet that created the workspace.' }),
  createdAt: Timestamp,
});

export const CreateWorkspaceBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX_CHARS, pattern: '\\S' }),
    description: Type.Optional(Type.String({ description: `At most ${PORTAL_DESCRIPTION_MAX_CHARS} characters.` })),
  },
  { additionalProperties: false },
);

export const UpdateWorkspaceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX_CHARS, pattern: '\\S' })),
    description: Type.Optional(
      Type.String({
        description:
          'Shown on the checkout page. At most 2048 UTF-8 bytes through the API, 500 characters in the portal.',
      }),
    ),
  },
  { additionalProperties: false },
);
