/**
 * Ids and values the API document's examples share, so that one capability's example refers to another's
 * (the invoice a payment pays, the workspace of a link). Here, with no imports, so any module can use them.
 */
export const EXAMPLE_IDS = {
  workspace: 'ws_01jd6q0b7n3k9m2x4t8v5c1r6p',
  invoice: 'inv_01jd6q5v0kz7r3x9m2t4b8n1c6',
  automation: 'aut_01jd6pz3x8m1k5t7v2c9n4b6r0',
  paymentIntent: 'pi_01jd6q9e4w2n7k1x5m3t8v6b0c',
  receivedTransfer: 'rt_01jd6qc2m8k4t1x7v3n9b5r0p6',
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  payer: '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF',
  transaction: '0x8d2c3a4f5e6b7a8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c',
} as const;
