-- The DuckDB peer of `benchnote report` for the benchmark sweep (docs/benchmarks.md):
-- the same per-run statistics and their across-run median and MAD per level.
-- The FROM placeholder below is replaced by read_parquet('ROOT/c*/run-*/requests.parquet', filename = true)
-- or read_csv('ROOT/c*/run-*/requests.csv', filename = true, header = true).
-- Percentiles are nearest rank (quantile_disc); TPOT over n − 1 gaps for n ≥ 2;
-- goodput % = requests meeting TTFT ≤ 1 s, TPOT ≤ 150 ms, E2E ≤ 5 s over every request.
WITH r AS (
  SELECT regexp_extract(filename, '/c([0-9]+)/', 1)::INTEGER AS level,
         regexp_extract(filename, '/(run-[0-9]+)/', 1) AS run,
         prompt_tokens AS p, completion_tokens AS n, TTFT_ms AS ttft, E2E_ms AS e2e,
         coalesce(status, '') IN ('', 'ok') AS ok,
         t_request_sent AS sent
  FROM __SOURCE__
),
per_run AS (
  SELECT level, run,
    count(*) AS rows_read,
    count(*) FILTER (WHERE NOT ok) AS errors,
    quantile_disc(ttft, [0.5, 0.95, 0.99]) FILTER (WHERE ok AND n >= 1) AS ttft_q,
    max(ttft) FILTER (WHERE ok AND n >= 1) AS ttft_max,
    avg(ttft) FILTER (WHERE ok AND n >= 1) AS ttft_mean,
    quantile_disc(e2e, [0.5, 0.95, 0.99]) FILTER (WHERE ok AND n >= 1) AS e2e_q,
    max(e2e) FILTER (WHERE ok AND n >= 1) AS e2e_max,
    avg(e2e) FILTER (WHERE ok AND n >= 1) AS e2e_mean,
    quantile_disc((e2e - ttft) / (n - 1), [0.5, 0.95, 0.99]) FILTER (WHERE ok AND n >= 2) AS tpot_q,
    avg((e2e - ttft) / (n - 1)) FILTER (WHERE ok AND n >= 2) AS tpot_mean,
    sum(e2e - ttft) FILTER (WHERE ok AND n >= 2) / sum(n - 1) FILTER (WHERE ok AND n >= 2) AS itl_gap_weighted,
    quantile_disc(1000.0 * (n - 1) / (e2e - ttft), [0.5, 0.95, 0.99]) FILTER (WHERE ok AND n >= 2 AND e2e > ttft) AS user_tps_q,
    100.0 * count(*) FILTER (WHERE ok AND n >= 1 AND ttft <= 1000 AND e2e <= 5000
                             AND (n < 2 OR (e2e - ttft) / (n - 1) <= 150)) / count(*) AS goodput_pct,
    sum(n) FILTER (WHERE ok) / ((max(sent + e2e / 1000) FILTER (WHERE ok)) - min(sent)) AS client_tokens_per_s,
    quantile_disc(p, 0.5) AS prompt_p50,
    quantile_disc(n, 0.5) FILTER (WHERE ok) AS output_p50
  FROM r
  GROUP BY level, run
),
stats AS (
  SELECT level, run, rows_read, errors, ttft_max, ttft_mean, e2e_max, e2e_mean, tpot_mean, itl_gap_weighted,
    goodput_pct, client_tokens_per_s, prompt_p50, output_p50,
    ttft_q[1] AS ttft_p50, ttft_q[2] AS ttft_p95, ttft_q[3] AS ttft_p99,
    e2e_q[1] AS e2e_p50, e2e_q[2] AS e2e_p95, e2e_q[3] AS e2e_p99,
    tpot_q[1] AS tpot_p50, tpot_q[2] AS tpot_p95, tpot_q[3] AS tpot_p99,
    user_tps_q[1] AS user_tps_p50, user_tps_q[2] AS user_tps_p95, user_tps_q[3] AS user_tps_p99
  FROM per_run
)
SELECT level, count(*) AS runs, sum(rows_read) AS rows_read, sum(errors) AS errors,
  median(ttft_p50) AS ttft_p50, mad(ttft_p50) AS ttft_p50_mad,
  median(ttft_p95) AS ttft_p95, mad(ttft_p95) AS ttft_p95_mad,
  median(ttft_p99) AS ttft_p99, mad(ttft_p99) AS ttft_p99_mad,
  median(ttft_max) AS ttft_max, median(ttft_mean) AS ttft_mean,
  median(e2e_p50) AS e2e_p50, mad(e2e_p50) AS e2e_p50_mad,
  median(e2e_p95) AS e2e_p95, mad(e2e_p95) AS e2e_p95_mad,
  median(e2e_p99) AS e2e_p99, mad(e2e_p99) AS e2e_p99_mad,
  median(e2e_max) AS e2e_max, median(e2e_mean) AS e2e_mean,
  median(tpot_p50) AS tpot_p50, mad(tpot_p50) AS tpot_p50_mad,
  median(tpot_p95) AS tpot_p95, mad(tpot_p95) AS tpot_p95_mad,
  median(tpot_p99) AS tpot_p99, mad(tpot_p99) AS tpot_p99_mad,
  median(tpot_mean) AS tpot_mean, median(itl_gap_weighted) AS itl_gap_weighted,
  median(user_tps_p50) AS user_tps_p50, median(user_tps_p95) AS user_tps_p95, median(user_tps_p99) AS user_tps_p99,
  median(goodput_pct) AS goodput_pct, mad(goodput_pct) AS goodput_pct_mad,
  median(client_tokens_per_s) AS client_tokens_per_s,
  median(prompt_p50) AS prompt_p50, median(output_p50) AS output_p50
FROM stats
GROUP BY level
ORDER BY level;
