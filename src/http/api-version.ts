/** The interface version every response names in `X-API-Version`. */
export const API_VERSION = '1.1.0';
