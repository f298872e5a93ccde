-- sessions: one row per agent session, newest first.
-- What ran, how often it failed and how long it took, from the `cycles` dataset.
SELECT
    session_id,
    any_value(pack)                                        AS pack,
    count(*)                                               AS cycles,
    count(*) FILTER (WHERE failed)                         AS failed,
    string_agg(program, ' > ' ORDER BY cycle)              AS programs,
    min(started_at)                                        AS started_at,
    max(finished_at)                                       AS finished_at,
    round(sum(duration_s), 1)                              AS run_seconds
FROM cycles
GROUP BY session_id
ORDER BY max(recorded_at) DESC;
