// The JSON the portal reads, typed by the very TypeBox schemas that whitelist each response on the server.
// Type-only imports: esbuild drops them, so no server code reaches the browser.
import type { Static } from '@sinclair/typebox';
import type { ErrorBody } from '../../../http/common.schemas.js';
import type { ApiKeyView, CreatedApiKey } from '../../../modules/api-keys/index.js';
import type { NonceResponse, SessionResponse } from '../../../modules/auth/index.js';
import type { AutomationPage, AutomationView, SchedulePreview } from '../../../modules/automations/index.js';
import type { BillingView, LedgerPage } from '../../../modules/billing/index.js';
import type { CheckoutSettingsView } from '../../../modules/checkout-settings/index.js';
import type { CreditPurchaseView, PurchasePage } from '../../../modules/credit-purchases/index.js';
import type { DashboardView } from '../../../modules/dashboard/index.js';
import type { IssuesView } from '../../../modules/health/index.js';
import type { SearchPage } from '../../../modules/invoice-search/index.js';
import type { InvoicePage, InvoiceView } from '../../../modules/invoices/index.js';
import type { InvoiceChange as InvoiceChangeData } from '../../../modules/payment-views/index.js';
import type { ReceiptView } from '../../../modules/receipts/index.js';
import type { ReceivedTransferPage, ReceivedTransferView } from '../../../modules/received-transfers/index.js';
import type { StatementView } from '../../../modules/statements/index.js';
import type { InvoiceTimelineView } from '../../../modules/timeline/index.js';
import type { DeliveryView, TestResult, WebhookSettingsView, WebhookView } from '../../../modules/webhooks/index.js';
import type { WorkspaceView } from '../../../modules/workspaces/index.js';

/** Every error answer; a refused payment also says why in `reason`. */
export type ErrorAnswer = Static<typeof ErrorBody> & { readonly reason?: string; readonly maxInvoiceAmount?: string };

export type Nonce = Static<typeof NonceResponse>;
export type Session = Static<typeof SessionResponse>;

export type Workspace = Static<typeof WorkspaceView>;
export interface WorkspaceList {
  readonly workspaces: Workspace[];
}
export type CheckoutSettings = Static<typeof CheckoutSettingsView>;

export type Issue = Static<typeof IssuesView>['issues'][number];
export type Issues = Static<typeof IssuesView>;
export type Dashboard = Static<typeof DashboardView>;

export type Invoice = Static<typeof InvoiceView>;
export type InvoiceList = Static<typeof InvoicePage>;
export type InvoiceSearch = Static<typeof SearchPage>;
/** The data of an `invoice` event of GET …/invoices/events. */
export type InvoiceChange = Static<typeof InvoiceChangeData>;
export type Timeline = Static<typeof InvoiceTimelineView>;
export type TimelineRecord = Timeline['records'][number];
export type Receipt = Static<typeof ReceiptView>;

export type ReceivedTransfer = Static<typeof ReceivedTransferView>;
export type ReceivedTransferList = Static<typeof ReceivedTransferPage>;

export type Automation = Static<typeof AutomationView>;
export type AutomationList = Static<typeof AutomationPage>;
export type Preview = Static<typeof SchedulePreview>;

export type ApiKey = Static<typeof ApiKeyView>;
export interface ApiKeyList {
  readonly keys: ApiKey[];
}
export type NewApiKey = Static<typeof CreatedApiKey>;

export type Webhook = Static<typeof WebhookView>;
export type WebhookSettings = Static<typeof WebhookSettingsView>;
export type Delivery = Static<typeof DeliveryView>;
export type WebhookTest = Static<typeof TestResult>;

export type Billing = Static<typeof BillingView>;
export type Ledger = Static<typeof LedgerPage>;
export type CreditPurchase = Static<typeof CreditPurchaseView>;
export type CreditPurchaseList = Static<typeof PurchasePage>;

export type Statement = Static<typeof StatementView>;
