-- Abuse limits that hold across every server process on this database (nonce issuance and failed API
-- key attempts per client IP). One row per (limit, subject): a fixed window that opens at the subject's
-- first hit and lasts the limit's window; the first hit after it ends opens a new one. Each hit is one
-- INSERT … ON CONFLICT DO UPDATE … RETURNING, so concurrent hits are counted exactly.

CREATE TABLE rate_limit_counters (
  -- The limit's name, e.g. 'auth.nonce' or 'api-keys.failed'.
  bucket       text        NOT NULL,
  -- Who is counted, e.g. a client IP address.
  subject      text        NOT NULL,
  hits         integer     NOT NULL CHECK (hits > 0),
  window_ends  timestamptz NOT NULL,
  PRIMARY KEY (bucket, subject)
);

-- The cleanup job deletes rows whose window has ended.
CREATE INDEX rate_limit_counters_window_ends ON rate_limit_counters (window_ends);
