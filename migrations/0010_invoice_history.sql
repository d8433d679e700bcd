-- An invoice's feed events outlive the change feed's retention (EVENT_RETENTION_DAYS): when retention
-- deletes them from `events`, the same statement moves those of invoices here, so that the invoice's
-- timeline keeps every lifecycle record for INVOICE_RETENTION_DAYS. Written only by retention, off every
-- request's path; read only by the timeline.
CREATE TABLE invoice_history (
  workspace_id      text NOT NULL,
  event_id          bigint NOT NULL,
  invoice_id        text NOT NULL,
  type              text NOT NULL,
  payment_intent_id text,
  data              json NOT NULL,
  created_at        timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, event_id)
);
CREATE INDEX invoice_history_invoice_idx ON invoice_history (workspace_id, invoice_id, created_at);
-- Its own retention deletes the oldest first.
CREATE INDEX invoice_history_created_idx ON invoice_history (created_at);
