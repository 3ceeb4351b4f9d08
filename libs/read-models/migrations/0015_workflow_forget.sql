-- The workflow runner's write cancels timers and deletes sent intents by key. As a join of the table with
-- the keys (jsonb_to_recordset, which the planner always counts as 100 rows), PostgreSQL hashed the whole
-- workflow's timers, or scanned the whole outbox, on every write: ~6 ms a write under load with a few
-- thousand rows (dead ones included), and growing with the table (a queue timeout timer per searching lobby).
-- This function deletes each by its primary key instead, whatever the statistics say.
CREATE OR REPLACE FUNCTION workflow_forget(p_workflow text, p_timers jsonb, p_intents jsonb)
RETURNS int
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  t record;
  i text;
BEGIN
  FOR t IN SELECT c.k, c.id FROM jsonb_to_recordset(p_timers) AS c(k text, id text) LOOP
    DELETE FROM workflow_timers WHERE workflow = p_workflow AND key = t.k AND id = t.id;
  END LOOP;
  FOR i IN SELECT jsonb_array_elements_text(p_intents) LOOP
    DELETE FROM workflow_intents WHERE id = i::bigint;
  END LOOP;
  RETURN 0;
END
$fn$;
