import { Type } from '@sinclair/typebox';
import { MAX_RETURN_ORIGINS } from './checkout-settings.js';

export const CheckoutSettingsBody = Type.Object(
  {
    origins: Type.Array(Type.String({ maxLength: 300 }), {
      maxItems: MAX_RETURN_ORIGINS,
      description:
        'Exact https origins on port 443, e.g. "https://shop.example.com". No wildcards, credentials, paths or other ports. With WEBHOOK_ALLOW_PRIVATE (local development) also http://localhost:port and the loopback addresses.',
    }),
  },
  { additionalProperties: false },
);
export const CheckoutSettingsView = Type.Object({ origins: Type.Array(Type.String()) });
