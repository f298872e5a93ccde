-- metric-trend: how each numeric metric moved within each session, per program.
-- $program: only this program (NULL = all programs).
SELECT
    program,
    metric,
    session_id,
    count(*)                                   AS runs,
    arg_min(value, cycle)                      AS first_value,
    arg_max(value, cycle)                      AS last_value,
    round(arg_max(value, cycle) - arg_min(value, cycle), 6) AS change,
    min(value)                                 AS min_value,
    max(value)                                 AS max_value,
    min(recorded_at)                           AS first_recorded_at
FROM metrics
WHERE value IS NOT NULL
  AND ($program IS NULL OR program = $program)
GROUP BY program, metric, session_id
ORDER BY program, metric, first_recorded_at;
