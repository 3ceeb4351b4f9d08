-- Rate-limit token buckets shared by every gateway replica (distributed mode; docs/adr/0008-limits-shared-rate-limits.md).
-- Gateways lease slices of tokens with one call of rate_limit_lease(); they spend them locally.
-- UNLOGGED: a crash may forget the buckets, which only refills them (a full bucket is the state of a
-- key unseen for a second). Plain SQL on purpose, outside prisma/schema.prisma: no Prisma model reads it.

CREATE UNLOGGED TABLE "rate_limit_buckets" (
  "key" TEXT PRIMARY KEY,
  "tokens" DOUBLE PRECISION NOT NULL,
  "at_ms" DOUBLE PRECISION NOT NULL
);

CREATE INDEX "rate_limit_buckets_at_ms_idx" ON "rate_limit_buckets"("at_ms");

-- One token bucket per key (capacity p_limit, refilled p_limit per second, on the database's clock so
-- gateways need no synchronised clocks). Grants up to p_want whole tokens; with none to give, wait_ms
-- says when p_want (at most the capacity) will be there.
CREATE FUNCTION rate_limit_lease(p_key TEXT, p_limit DOUBLE PRECISION, p_want DOUBLE PRECISION,
  OUT granted DOUBLE PRECISION, OUT remaining DOUBLE PRECISION, OUT wait_ms DOUBLE PRECISION)
LANGUAGE plpgsql AS $$
DECLARE
  b rate_limit_buckets%ROWTYPE;
  now_ms DOUBLE PRECISION;
  t DOUBLE PRECISION;
BEGIN
  SELECT * INTO b FROM rate_limit_buckets WHERE key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_limit_buckets (key, tokens, at_ms) VALUES (p_key, p_limit, extract(epoch FROM clock_timestamp()) * 1000)
      ON CONFLICT (key) DO NOTHING;
    SELECT * INTO b FROM rate_limit_buckets WHERE key = p_key FOR UPDATE;
  END IF;
  -- Read the clock after the row lock: time never runs backwards for a bucket.
  now_ms := GREATEST(b.at_ms, extract(epoch FROM clock_timestamp()) * 1000);
  t := LEAST(p_limit, b.tokens + (now_ms - b.at_ms) / 1000 * p_limit);
  granted := GREATEST(0, LEAST(p_want, floor(t)));
  remaining := t - granted;
  wait_ms := CASE WHEN granted >= 1 THEN 0 ELSE (LEAST(p_want, p_limit) - t) / p_limit * 1000 END;
  UPDATE rate_limit_buckets SET tokens = remaining, at_ms = now_ms WHERE key = p_key;
END $$;
