/** What other modules may use of api-keys; everything else is the module's own. */
export { MAX_ACTIVE_KEYS, PERMISSIONS, PERMISSION_PRESETS, looksLikeKey } from './api-key.js';
export type { Permission } from './api-key.js';
export { CreateApiKeyBody } from './api-key.schemas.js';
export { ApiKeyService } from './api-key.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { ApiKeyView, CreatedApiKey } from './api-key.schemas.js';
export { guardMerchantApi } from './api-key.guard.js';
export { apiKeysModule } from './api-keys.module.js';
