-- Two more fields of the public profile buyers see: where to ask for help, and the colour of the
-- buyer's pages. Both optional (null: none, the pages keep their own). The application checks them
-- fully (an email address, or an https URL without credentials); these CHECKs hold the shapes and
-- limits that are simple to state, so no other writer can store what a page cannot use.
ALTER TABLE workspaces
  ADD COLUMN support_contact text CHECK (
    (support_contact ~ '^[^@[:space:]]+@[^@[:space:]]+$' AND length(support_contact) <= 254)
    OR (support_contact ~ '^https://[^[:space:]]+$' AND length(support_contact) <= 2048)
  ),
  -- Stored lowercase, so equal colours compare equal.
  ADD COLUMN accent_color text CHECK (accent_color ~ '^#[0-9a-f]{6}$');
