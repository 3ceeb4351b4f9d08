// The PostgreSQL schema of the event store. Every statement is idempotent; migrate() runs them under
// MIGRATE_LOCK so concurrent starts don't race on CREATE OR REPLACE FUNCTION.

/** NOTIFY channel; the payload is the position of the last event of the committed append. */
export const EVENTS_CHANNEL = 'spawnpoint_events';

/** Session advisory lock key guarding migrate(). */
export const MIGRATE_LOCK = 7_301_001;

/** Transaction advisory lock key serialising appends, so position order is commit order. */
export const APPEND_LOCK = 7_301_002;

/** SQLSTATE raised by append_events() on an expected-revision mismatch; DETAIL holds the actual revision. */
export const WRONG_EXPECTED_VERSION_SQLSTATE = 'SP409';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS events (
  position   bigserial PRIMARY KEY,
  event_id   uuid UNIQUE NOT NULL,
  stream_id  text NOT NULL,
  category   text NOT NULL,
  revision   int NOT NULL,
  type       text NOT NULL,
  data       jsonb NOT NULL,
  metadata   jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_id, revision)
);

CREATE INDEX IF NOT EXISTS events_category_position ON events (category, position);

-- Why position order is commit order: every append takes one global transaction lock before it touches
-- the sequence and holds it until commit, so a reader that has seen position P never later sees a new
-- event below P. The functions are VOLATILE, so each statement takes a fresh snapshot after the lock
-- is granted and sees the previous holder's commit.

-- Checks one stream's expected revision and, if it holds, inserts the events. Callers hold the lock.
-- On a mismatch: ok = false and next_revision = the stream's actual last revision.
CREATE OR REPLACE FUNCTION append_stream_events(
  p_stream text, p_expected text, p_events jsonb,
  OUT ok boolean, OUT next_revision int, OUT last_position bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_current int;
BEGIN
  SELECT coalesce(max(e.revision), -1) INTO v_current FROM events e WHERE e.stream_id = p_stream;

  -- Separate branches: the ::int cast must only ever be planned for numeric expectations.
  IF p_expected = 'no_stream' THEN
    ok := v_current = -1;
  ELSIF p_expected = 'any' THEN
    ok := true;
  ELSE
    ok := v_current = p_expected::int;
  END IF;

  next_revision := v_current;
  IF NOT ok THEN
    RETURN;
  END IF;
  IF jsonb_array_length(p_events) = 0 THEN
    SELECT coalesce(max(e.position), 0) INTO last_position FROM events e WHERE e.stream_id = p_stream;
    RETURN;
  END IF;

  next_revision := v_current + jsonb_array_length(p_events);

  WITH inserted AS (
    INSERT INTO events (event_id, stream_id, category, revision, type, data, metadata)
    SELECT (x.e ->> 'id')::uuid, p_stream, split_part(p_stream, '-', 1), v_current + x.ord::int,
           x.e ->> 'type', x.e -> 'data', coalesce(x.e -> 'metadata', '{}')
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x(e, ord)
    ORDER BY x.ord
    RETURNING position
  )
  SELECT max(i.position) INTO last_position FROM inserted i;
END
$fn$;

-- One append in one round trip; a mismatch raises ${WRONG_EXPECTED_VERSION_SQLSTATE} with the actual revision as DETAIL.
CREATE OR REPLACE FUNCTION append_events(p_stream text, p_expected text, p_events jsonb)
RETURNS TABLE (next_revision int, last_position bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  r record;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  SELECT * INTO r FROM append_stream_events(p_stream, p_expected, p_events);
  IF NOT r.ok THEN
    RAISE EXCEPTION 'wrong expected version on %: expected %, actual %', p_stream, p_expected, r.next_revision
      USING ERRCODE = '${WRONG_EXPECTED_VERSION_SQLSTATE}', DETAIL = r.next_revision::text;
  END IF;
  IF jsonb_array_length(p_events) > 0 THEN
    PERFORM pg_notify('${EVENTS_CHANNEL}', r.last_position::text);
  END IF;
  RETURN QUERY SELECT r.next_revision, r.last_position;
END
$fn$;

-- Several appends in one transaction (one WAL flush): p_appends is [{stream, expected, events}], the
-- result one {ok, revision, position} per append, in order. A mismatch fails only its own append.
-- Set-based: one index probe per stream for its head, the expectations checked in order in memory (an
-- append sees the ones before it in the batch), then one INSERT of every accepted event, in batch order (so
-- positions follow it). An append of no events answers its stream's last position after the batch.
CREATE OR REPLACE FUNCTION append_events_batch(p_appends jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  a jsonb;
  v_heads jsonb;
  v_stream text;
  v_cur int;
  v_n int;
  v_streams text[] := '{}';
  v_ok boolean[] := '{}';
  v_rev int[] := '{}';
  v_base int[] := '{}';
  v_pos jsonb;
  v_last bigint;
  v_results jsonb;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  SELECT coalesce(jsonb_object_agg(s.stream, coalesce(h.revision, -1)), '{}') INTO v_heads
    FROM (SELECT DISTINCT x ->> 'stream' AS stream FROM jsonb_array_elements(p_appends) AS x) s
    LEFT JOIN LATERAL (SELECT e.revision FROM events e WHERE e.stream_id = s.stream ORDER BY e.revision DESC LIMIT 1) h ON true;

  FOR a IN SELECT x.a FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS x(a, ord) ORDER BY x.ord LOOP
    v_stream := a ->> 'stream';
    v_cur := (v_heads ->> v_stream)::int;
    v_streams := array_append(v_streams, v_stream);
    -- Separate branches: the ::int cast must only ever be evaluated for numeric expectations.
    IF a ->> 'expected' = 'no_stream' THEN
      v_ok := array_append(v_ok, v_cur = -1);
    ELSIF a ->> 'expected' = 'any' THEN
      v_ok := array_append(v_ok, true);
    ELSE
      v_ok := array_append(v_ok, v_cur = (a ->> 'expected')::int);
    END IF;
    IF v_ok[cardinality(v_ok)] THEN
      v_n := jsonb_array_length(a -> 'events');
      v_base := array_append(v_base, CASE WHEN v_n > 0 THEN v_cur END);
      v_rev := array_append(v_rev, v_cur + v_n);
      v_heads := jsonb_set(v_heads, ARRAY[v_stream], to_jsonb(v_cur + v_n));
    ELSE
      v_base := array_append(v_base, NULL::int);
      v_rev := array_append(v_rev, v_cur);
    END IF;
  END LOOP;

  WITH inserted AS (
    INSERT INTO events (event_id, stream_id, category, revision, type, data, metadata)
    SELECT (e.e ->> 'id')::uuid, x.a ->> 'stream', split_part(x.a ->> 'stream', '-', 1), v_base[x.ord::int] + e.k::int,
           e.e ->> 'type', e.e -> 'data', coalesce(e.e -> 'metadata', '{}')
    FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS x(a, ord)
    CROSS JOIN LATERAL jsonb_array_elements(x.a -> 'events') WITH ORDINALITY AS e(e, k)
    WHERE v_base[x.ord::int] IS NOT NULL
    ORDER BY x.ord, e.k
    RETURNING stream_id, revision, position
  )
  SELECT jsonb_object_agg(i.stream_id || '/' || i.revision, i.position::text), max(i.position) INTO v_pos, v_last FROM inserted i;

  SELECT jsonb_agg(jsonb_build_object('ok', v_ok[i], 'revision', v_rev[i], 'position', CASE
      WHEN NOT v_ok[i] THEN NULL
      WHEN v_base[i] IS NOT NULL THEN v_pos ->> (v_streams[i] || '/' || v_rev[i])
      ELSE (SELECT coalesce(max(e.position), 0) FROM events e WHERE e.stream_id = v_streams[i])::text END) ORDER BY i)
    INTO v_results FROM generate_subscripts(v_ok, 1) AS i;
  IF v_last IS NOT NULL THEN
    PERFORM pg_notify('${EVENTS_CHANNEL}', v_last::text);
  END IF;
  RETURN coalesce(v_results, '[]');
END
$fn$;
`;
