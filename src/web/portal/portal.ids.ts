// The ids of the portal's elements that its browser script looks up: the server-rendered sections and
// the script (client/*.ts) both take them from here, so a renamed id cannot leave one side behind.
// Ids that only the markup uses (labels, aria-labelledby of headings) stay in the markup.

export const ids = {
  // The shell (portal.layout.ts, portal.page.ts)
  portalConfig: 'portal-config',
  session: 'session',
  sessionAddress: 'session-address',
  signOut: 'sign-out',
  notice: 'notice',
  loading: 'loading',
  signedIn: 'signed-in',
  workspaceArea: 'workspace-area',

  // Sign-in (sections/sign-in.ts)
  signedOut: 'signed-out',
  walletList: 'wallet-list',
  walletSearching: 'wallet-searching',
  signInStatus: 'sign-in-status',
  noWallet: 'no-wallet',
  originWarning: 'origin-warning',

  // Workspace picker and create form (sections/workspace.ts)
  workspaceSelect: 'workspace-select',
  showCreateWorkspace: 'show-create-workspace',
  workspaceCreate: 'workspace-create',
  workspaceForm: 'workspace-form',
  cancelCreateWorkspace: 'cancel-create-workspace',

  // Overview and health issues (sections/overview.ts)
  issues: 'issues',
  issuesList: 'issues-list',
  workspace: 'workspace',
  workspaceTitle: 'workspace-title',
  workspaceDescription: 'workspace-description',
  workspaceId: 'workspace-id',
  workspaceWallet: 'workspace-wallet',
  workspaceApiBase: 'workspace-api-base',
  billingAvailable: 'billing-available',
  billingBalance: 'billing-balance',
  billingReserved: 'billing-reserved',
  billingTariff: 'billing-tariff',
  billingFee: 'billing-fee',
  billingMax: 'billing-max',
  billingGrantNote: 'billing-grant-note',
  activitySummary: 'activity-summary',
  chartVolume: 'chart-volume',
  chartWebhooks: 'chart-webhooks',

  // Invoices and one invoice (sections/invoices.ts)
  invoiceForm: 'invoice-form',
  invoiceSearch: 'invoice-search',
  invoiceSearchClear: 'invoice-search-clear',
  invoiceFilters: 'invoice-filters',
  invoiceListStatus: 'invoice-list-status',
  invoiceTable: 'invoice-table',
  invoiceRows: 'invoice-rows',
  invoiceMore: 'invoice-more',
  invoiceExport: 'invoice-export',
  invoiceExportStatus: 'invoice-export-status',
  invoiceDetail: 'invoice-detail',
  invoiceNumber: 'invoice-number',
  invoiceStatus: 'invoice-status',
  invoiceFacts: 'invoice-facts',
  invoiceCheckoutUrl: 'invoice-checkout-url',
  invoiceCheckoutOpen: 'invoice-checkout-open',
  invoiceUrl: 'invoice-url',
  invoiceActions: 'invoice-actions',
  renewExpires: 'renew-expires',
  renewInvoice: 'renew-invoice',
  cancelInvoice: 'cancel-invoice',
  invoiceReceipt: 'invoice-receipt',
  receiptFacts: 'receipt-facts',
  invoiceTimeline: 'invoice-timeline',
  invoiceTimelineNote: 'invoice-timeline-note',

  // Received transfers (sections/received.ts)
  receivedFilters: 'received-filters',
  receivedListStatus: 'received-list-status',
  receivedTable: 'received-table',
  receivedRows: 'received-rows',
  receivedMore: 'received-more',
  receivedResolve: 'received-resolve',
  receivedResolveTitle: 'received-resolve-title',
  receivedApplyForm: 'received-apply-form',
  receivedInvoice: 'received-invoice',
  receivedInvoiceHint: 'received-invoice-hint',
  receivedDismissForm: 'received-dismiss-form',
  receivedNote: 'received-note',

  // Automations and one automation (sections/automations.ts)
  automationListStatus: 'automation-list-status',
  automationRows: 'automation-rows',
  automationMore: 'automation-more',
  automationForm: 'automation-form',
  automationPreviewStatus: 'automation-preview-status',
  automationPreview: 'automation-preview',
  automationDetail: 'automation-detail',
  automationNameHeading: 'automation-name-heading',
  automationStatus: 'automation-status',
  automationPausedReason: 'automation-paused-reason',
  automationFacts: 'automation-facts',
  automationActions: 'automation-actions',
  automationPause: 'automation-pause',
  automationResume: 'automation-resume',
  automationEndNow: 'automation-end-now',
  automationUpcoming: 'automation-upcoming',
  automationUpcomingNone: 'automation-upcoming-none',
  automationInvoicesStatus: 'automation-invoices-status',
  automationInvoiceRows: 'automation-invoice-rows',
  automationInvoicesMore: 'automation-invoices-more',

  // Billing and one credit purchase (sections/billing.ts)
  purchaseDetail: 'purchase-detail',
  purchaseStatus: 'purchase-status',
  purchaseState: 'purchase-state',
  purchaseFacts: 'purchase-facts',
  purchasePay: 'purchase-pay',
  purchaseWallets: 'purchase-wallets',
  purchaseNoWallet: 'purchase-no-wallet',
  purchasePayStep: 'purchase-pay-step',
  purchasePayError: 'purchase-pay-error',
  purchasePayment: 'purchase-payment',
  purchasePaymentFacts: 'purchase-payment-facts',
  purchaseOtherWays: 'purchase-other-ways',
  purchaseLinks: 'purchase-links',
  purchaseTxForm: 'purchase-tx-form',
  purchaseTxNetwork: 'purchase-tx-network',
  billingTabBalance: 'billing-tab-balance',
  billingTabAvailable: 'billing-tab-available',
  billingTabGrantNote: 'billing-tab-grant-note',
  purchasesUnavailable: 'purchases-unavailable',
  packageList: 'package-list',
  purchaseListStatus: 'purchase-list-status',
  purchaseRows: 'purchase-rows',
  purchaseMore: 'purchase-more',
  ledgerStatus: 'ledger-status',
  ledgerRows: 'ledger-rows',
  ledgerMore: 'ledger-more',

  // Statement (sections/statement.ts)
  statementPrev: 'statement-prev',
  statementMonth: 'statement-month',
  statementNext: 'statement-next',
  statementPrint: 'statement-print',
  statementCsv: 'statement-csv',
  statementStatus: 'statement-status',
  statementSheet: 'statement-sheet',
  statementHeading: 'statement-heading',
  statementPeriod: 'statement-period',
  statementPartial: 'statement-partial',
  statementInvoices: 'statement-invoices',
  statementVolume: 'statement-volume',
  statementCredits: 'statement-credits',
  statementWorkspaceId: 'statement-workspace-id',
  statementGenerated: 'statement-generated',

  // API keys and webhook (sections/api.ts)
  keys: 'keys',
  keysBody: 'keys-body',
  keysEmpty: 'keys-empty',
  keyForm: 'key-form',
  webhookState: 'webhook-state',
  webhookForm: 'webhook-form',
  webhookControls: 'webhook-controls',
  webhookToggle: 'webhook-toggle',
  webhookRotate: 'webhook-rotate',
  webhookTest: 'webhook-test',
  webhookTestResult: 'webhook-test-result',
  webhookRefresh: 'webhook-refresh',
  deliveriesBody: 'deliveries-body',
  deliveriesEmpty: 'deliveries-empty',
  attemptsBody: 'attempts-body',
  attemptsEmpty: 'attempts-empty',

  // Settings (sections/settings.ts)
  profileForm: 'profile-form',
  originsForm: 'origins-form',
} as const;

/** The name and description fields with a live counter (sections/workspace.ts `profileFields`). */
export function profileFieldIds(prefix: 'workspace' | 'profile') {
  return {
    name: `${prefix}-name-input`,
    description: `${prefix}-description-input`,
    descriptionCount: `${prefix}-description-count`,
  } as const;
}

/** A one-time secret's box (sections/api.ts `secretBox`, client/secret.ts). */
export function secretBoxIds(prefix: 'key' | 'webhook') {
  return {
    box: `${prefix}-secret-box`,
    value: `${prefix}-secret-value`,
    copy: `${prefix}-copy-secret`,
    dismiss: `${prefix}-dismiss-secret`,
  } as const;
}
