/**
 * Permission names, the vocabulary of the merchant API's routes: the HTTP toolkit checks them and the
 * api-keys module grants them. What each allows is listed in the API reference and the portal's key form.
 */
export const PERMISSIONS = [
  'invoices:create',
  'invoices:read',
  'payments:read',
  'payments:write',
  'billing:read',
  'billing:write',
  'webhooks:read',
  'webhooks:write',
  'settings:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];
