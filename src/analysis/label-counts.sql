-- What replacing the staged sources does (label-stage.sql): labels written
-- again (an address the source labelled before), and labels removed (an
-- address the source labelled before and no longer does).
SELECT
  (SELECT count(*) FROM labels l SEMI JOIN w_label_import i USING (address, source_kind, source_key)) AS replaced,
  (SELECT count(*) FROM labels l SEMI JOIN w_label_sources s USING (source_kind, source_key)
     ANTI JOIN w_label_import i USING (address, source_kind, source_key)) AS removed
