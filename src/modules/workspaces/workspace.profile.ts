import { AppError, type ErrorCode } from '../../shared/errors.js';
import { normaliseAccentColor } from './accent-color.js';
import { SUPPORT_CONTACT_RULE, normaliseSupportContact } from './support-contact.js';
import {
  API_DESCRIPTION_MAX_BYTES,
  PORTAL_DESCRIPTION_MAX_CHARS,
  descriptionFits,
  type ProfileChanges,
} from './workspace.js';

/**
 * A profile change as it is stored: the name trimmed, the support contact and the accent colour in their
 * stored spelling ("" clears the support contact, as null does). Throws AppError with the code of the
 * first field that does not fit; fields left out stay left out.
 */
/** How a change of the profile can be refused, through the API and the portal alike. */
export const PROFILE_CHANGE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'unknown_field',
  'invalid_json',
  'description_too_long',
  'invalid_support_contact',
  'invalid_accent_color',
];

export function checkProfileChanges(changes: ProfileChanges, via: 'api' | 'portal'): ProfileChanges {
  if (changes.description !== undefined) checkDescription(changes.description, via);
  return {
    ...changes,
    ...(changes.name !== undefined && { name: changes.name.trim() }),
    ...(changes.supportContact !== undefined && { supportContact: checkSupportContact(changes.supportContact) }),
    ...(changes.accentColor !== undefined && { accentColor: checkAccentColor(changes.accentColor) }),
  };
}

export function checkDescription(description: string, via: 'api' | 'portal'): void {
  if (!descriptionFits(description, via)) {
    const limit =
      via === 'api' ? `${API_DESCRIPTION_MAX_BYTES} UTF-8 bytes` : `${PORTAL_DESCRIPTION_MAX_CHARS} characters`;
    throw new AppError('description_too_long', `The workspace description is limited to ${limit} here.`);
  }
}

function checkSupportContact(raw: string | null): string | null {
  if (raw === null || raw.trim() === '') return null;
  const contact = normaliseSupportContact(raw);
  if (contact === undefined) throw new AppError('invalid_support_contact', SUPPORT_CONTACT_RULE);
  return contact;
}

function checkAccentColor(raw: string | null): string | null {
  if (raw === null) return null;
  const color = normaliseAccentColor(raw);
  if (color === undefined) {
    throw new AppError(
      'invalid_accent_color',
      'The accent colour must be a hex colour #rrggbb such as #0052ff, or null for none.',
    );
  }
  return color;
}
