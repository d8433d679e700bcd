// The ids of the checkout page's elements that its browser script looks up: the server-rendered page
// (checkout.page.ts, checkout.receipt.ts) and the script (client/*.ts) both take them from here.
// Ids that only the markup uses (labels, data-copy targets) stay in the markup.

export const ids = {
  config: 'checkout-config',
  // The summary
  status: 'status',
  deadlineLine: 'deadline-line',
  timeLeft: 'time-left',
  countdown: 'countdown',
  deadline: 'deadline',
  // Notices
  noticeFailed: 'notice-failed',
  failureReason: 'failure-reason',
  noticeReopened: 'notice-reopened',
  // The receipt (checkout.receipt.ts)
  receipt: 'receipt',
  receiptNumber: 'receipt-number',
  receiptPaidAt: 'receipt-paid-at',
  receiptNetwork: 'receipt-network',
  receiptPayer: 'receipt-payer',
  receiptTx: 'receipt-tx',
  receiptTxLink: 'receipt-tx-link',
  printReceipt: 'print-receipt',
  receiptPdf: 'receipt-pdf',
  // Paying
  pay: 'pay',
  walletPay: 'wallet-pay',
  gaslessOff: 'gasless-off',
  wallets: 'wallets',
  noWallet: 'no-wallet',
  walletStatus: 'wallet-status',
  walletError: 'wallet-error',
  txForm: 'tx-form',
  txHash: 'tx-hash',
  txError: 'tx-error',
  txNote: 'tx-note',
  backLink: 'back-link',
} as const;

/** The notice for each status that has one; the script shows the one that fits. */
export const statusNoticeIds = {
  processing: 'notice-processing',
  paid: 'notice-paid',
  expired: 'notice-expired',
  cancelled: 'notice-cancelled',
  unpayable: 'notice-unpayable',
} as const;
