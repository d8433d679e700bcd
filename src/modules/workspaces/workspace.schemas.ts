import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/common.schemas.js';
import { NAME_MAX_CHARS, PORTAL_DESCRIPTION_MAX_CHARS } from './workspace.js';
import { SUPPORT_EMAIL_MAX_CHARS, SUPPORT_URL_MAX_CHARS } from './support-contact.js';

const SUPPORT_CONTACT = `Where buyers ask for help: an email address (at most ${SUPPORT_EMAIL_MAX_CHARS} characters) or an https URL without a user name or password (at most ${SUPPORT_URL_MAX_CHARS} characters).`;
const ACCENT_COLOR =
  "The colour of buyers' pages, as #rrggbb. Buttons keep their text readable: where the colour would not give 4.5:1 contrast, the page uses a darker or lighter shade of it.";

export const WorkspaceView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  supportContact: Nullable(
    Type.String({ description: `${SUPPORT_CONTACT} An https URL is shown as the URL parser spells it. null: none.` }),
  ),
  accentColor: Nullable(
    Type.String({ pattern: '^#[0-9a-f]{6}$', description: `${ACCENT_COLOR} Lowercase. null: the pages' own colour.` }),
  ),
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

// The two fields are checked by the service, not by a pattern here, so a refusal carries its own code
// (invalid_support_contact, invalid_accent_color) and a message saying what is accepted.
export const UpdateWorkspaceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX_CHARS, pattern: '\\S' })),
    description: Type.Optional(
      Type.String({
        description:
          'Shown on the checkout page. At most 2048 UTF-8 bytes through the API, 500 characters in the portal.',
      }),
    ),
    supportContact: Type.Optional(
      Nullable(
        Type.String({
          description: `${SUPPORT_CONTACT} Surrounding spaces are dropped. null or "" removes it; left out, it stays as it is. Anything else: 400 invalid_support_contact.`,
        }),
      ),
    ),
    accentColor: Type.Optional(
      Nullable(
        Type.String({
          description: `${ACCENT_COLOR} Any case; stored lowercase. null removes it; left out, it stays as it is. Anything else: 400 invalid_accent_color.`,
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
