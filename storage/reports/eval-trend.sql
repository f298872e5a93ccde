-- eval-trend: accuracy of each evaluation run of a suite over time, oldest first.
-- $suite: only this suite (NULL = all suites). A resumed run keeps its newest row.
SELECT
    suite,
    run_id,
    finished_at,
    samples,
    correct,
    round(accuracy, 4)       AS accuracy,
    round(se, 4)             AS se,
    round(grounding_rate, 4) AS grounded,
    round(latency_p50, 3)    AS p50_s,
    round(latency_p95, 3)    AS p95_s,
    provider,
    code_version,
    suite_hash
FROM eval_runs
WHERE ($suite IS NULL OR suite = $suite)
QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY recorded_at DESC) = 1
ORDER BY suite, finished_at;
