-- a_stats: headline counts (docs/api.md stats); value is JSON number text.
CREATE OR REPLACE TEMP TABLE a_stats AS
SELECT * FROM (VALUES
  ('total_pegins', (SELECT count(*) FROM w_pegins)::VARCHAR),
  ('total_pegouts', (SELECT count(*) FROM w_pegouts)::VARCHAR),
  ('total_pegin_amount', (SELECT (coalesce(sum(amount), 0) / {{litoshi_per_coin}})::DECIMAL(18, 8)::DOUBLE FROM w_pegins)::VARCHAR),
  ('total_pegout_amount', (SELECT (coalesce(sum(amount), 0) / {{litoshi_per_coin}})::DECIMAL(18, 8)::DOUBLE FROM w_pegouts)::VARCHAR),
  ('linkable_pegouts', (SELECT count(DISTINCT (pegout_txid, pegout_vout)) FROM a_links WHERE confidence >= {{linkable_confidence}})::VARCHAR),
  ('high_confidence_links', (SELECT count(*) FROM a_links WHERE confidence >= {{high_confidence}})::VARCHAR),
  ('reported_links', (SELECT count(*) FROM a_links)::VARCHAR),
  ('reuse_links', (SELECT count(*) FROM a_reuse)::VARCHAR),
  ('clustered_addresses', (SELECT count(*) FROM a_clusters)::VARCHAR),
  ('multi_address_clusters', (SELECT count(DISTINCT cluster_id) FROM a_clusters WHERE cluster_size > 1)::VARCHAR),
  ('labeled_addresses', (SELECT count(DISTINCT address) FROM a_labels)::VARCHAR),
  ('attributed_addresses', (SELECT count(*) FROM a_attribution)::VARCHAR),
  ('avg_privacy_score', (SELECT coalesce(round(avg(privacy_score), 2), 0) FROM a_pegin_scores)::VARCHAR),
  ('high_risk_pegouts', (SELECT count(*) FROM a_pegout_scores WHERE risk_score >= {{high_risk_score}})::VARCHAR),
  ('distinct_pegin_amounts', (SELECT count(DISTINCT amount) FROM w_pegins)::VARCHAR)
) AS t(key, value);
