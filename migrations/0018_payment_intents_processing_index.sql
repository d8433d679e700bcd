-- /metrics counts the payment attempts still in flight, and how long the oldest has been, on every
-- scrape. No index has selected them by status since 0012, and the table keeps every attempt ever made:
-- this partial index holds only the attempts in flight, so the count reads a few entries, never the table.
CREATE INDEX payment_intents_processing_idx ON payment_intents (created_at) WHERE status = 'processing';
