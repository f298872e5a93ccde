-- corpus: what each ingested corpus holds, one row per file.
-- $corpus: only this corpus (NULL = all corpora).
SELECT
    corpus,
    file,
    count(*)                                    AS chunks,
    sum(end_char - start_char)                  AS chars,
    count(DISTINCT heading)                     AS sections,
    round(avg(end_char - start_char))           AS avg_chunk_chars,
    max(ingested_at)                            AS ingested_at
FROM corpus_chunks
WHERE ($corpus IS NULL OR corpus = $corpus)
GROUP BY corpus, file
ORDER BY corpus, file;
