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
CREATE OR REPLACE FUNCTION append_events_batch(p_appends jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  a jsonb;
  r record;
  v_results jsonb := '[]';
  v_last bigint := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  FOR a IN SELECT x.a FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS x(a, ord) ORDER BY x.ord LOOP
    SELECT * INTO r FROM append_stream_events(a ->> 'stream', a ->> 'expected', a -> 'events');
    v_results := v_results || jsonb_build_array(
      jsonb_build_object('ok', r.ok, 'revision', r.next_revision, 'position', r.last_position::text));
    IF r.ok AND jsonb_array_length(a -> 'events') > 0 THEN
      v_last := r.last_position;
    END IF;
  END LOOP;
  IF v_last > 0 THEN
    PERFORM pg_notify('${EVENTS_CHANNEL}', v_last::text);
  END IF;
  RETURN v_results;
END
$fn$;
`;
