-- eval-trend: accuracy of each evaluation run of a suite over time, oldest first.
-- $suite: only this suite (NULL = all suites). A resumed run keeps its newest row.
SELECT
    suite,
    run_id,
    finished_at,
    samples,
    correct,
    round(accuracy, 4)                                                  AS accuracy,
    round(CAST(json_extract(config, '$.se') AS DOUBLE), 4)              AS se,
    round(CAST(json_extract(config, '$.grounding_rate') AS DOUBLE), 4)  AS grounded,
    round(CAST(json_extract(config, '$.latency_p50') AS DOUBLE), 3)     AS p50_s,
    round(CAST(json_extract(config, '$.latency_p95') AS DOUBLE), 3)     AS p95_s,
    json_extract_string(config, '$.provider')                           AS provider,
    json_extract_string(config, '$.code_version')                       AS code_version,
    json_extract_string(config, '$.suite_hash')                         AS suite_hash
FROM eval_runs
WHERE ($suite IS NULL OR suite = $suite)
QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY recorded_at DESC) = 1
ORDER BY suite, finished_at;
