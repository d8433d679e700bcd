-- Announces every change that can make an order payable or not, so that API processes may keep copies of
-- order states for x402 challenges (src/modules/payments/order-state-cache.ts) and drop one the moment it
-- changes. The payload is "<workspace id> <order id>", or "<workspace id>" when the workspace's receiving
-- wallet changes. NOTIFY is sent at COMMIT, and identical payloads within one transaction are sent once.

CREATE FUNCTION notify_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('order_changes', OLD.workspace_id || ' ' || OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER invoices_order_changes AFTER UPDATE OR DELETE ON invoices
  FOR EACH ROW EXECUTE FUNCTION notify_order_change();
CREATE TRIGGER credit_purchases_order_changes AFTER UPDATE OR DELETE ON credit_purchases
  FOR EACH ROW EXECUTE FUNCTION notify_order_change();

CREATE FUNCTION notify_workspace_wallet_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('order_changes', OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER workspaces_order_changes AFTER UPDATE OF wallet_address OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION notify_workspace_wallet_change();
