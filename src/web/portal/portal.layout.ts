import { html, jsonScript, type Html } from '../html.js';
import { ASSET_BASE, PORTAL_SCRIPT } from './portal.assets.js';
import { ids } from './portal.ids.js';

/** What every portal page tells its script. Read by client/app.ts from `#portal-config`. */
export interface PortalClientConfig {
  /** The origin of PUBLIC_BASE_URL: sign-in only works when the page is opened there. */
  readonly origin: string;
  /** Chain ids a wallet may sign in with, in preference order (the first is offered when switching). */
  readonly chainIds: readonly number[];
  /** WEBHOOK_RETRY_SCHEDULE in seconds: the health banner says how far apart retries get. */
  readonly webhookRetrySchedule?: readonly number[];
  /**
   * False when the page was asked for without a session cookie: nobody is signed in, so the page shows
   * the sign-in at once instead of asking for a session it would be refused (a 401 in the console).
   */
  readonly sessionCookie?: boolean;
}

export interface LayoutOptions {
  readonly title: string;
  readonly config: PortalClientConfig;
  readonly body: Html;
  /**
   * The local demo's built-in wallet (src/web/demo-wallet) is served: load its script, which announces
   * it through EIP-6963 like any wallet extension. Never true when real networks are configured.
   */
  readonly demoWallet?: boolean;
}

/**
 * The shell shared by portal pages: head, top bar with the signed-in wallet, footer. Loads only
 * same-origin assets, so it renders under the portal's strict Content-Security-Policy.
 */
export function renderLayout({ title, config, body, demoWallet = false }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${title} — Invoice Service</title>
<link rel="icon" href="${ASSET_BASE}favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_BASE}portal.css">
<link rel="stylesheet" href="${ASSET_BASE}statement.css">
${
  demoWallet &&
  html`<script type="module" src="/demo-wallet.js"></script>
`
}<script type="module" src="${ASSET_BASE}${PORTAL_SCRIPT}"></script>
${jsonScript(ids.portalConfig, config)}
</head>
<body>
<header class="topbar">
  <a class="brand" href="/portal">Invoice Service <span class="muted">portal</span></a>
  <nav class="topnav"><a href="/docs">API reference</a></nav>
  <div id="${ids.session}" class="session" hidden>
    <code id="${ids.sessionAddress}" class="address"></code>
    <button type="button" id="${ids.signOut}" class="secondary small">Sign out</button>
  </div>
</header>
<main>
<div id="${ids.notice}" class="notice" role="alert" hidden></div>
<noscript><p class="notice">The portal needs JavaScript and a browser wallet. The API itself works without either: see the <a href="/docs">API reference</a>.</p></noscript>
${body}
</main>
<footer class="footer"><a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI document</a></footer>
</body>
</html>
`.value;
}
