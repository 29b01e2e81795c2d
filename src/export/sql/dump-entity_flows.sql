-- dumps/entity_flows.*: value moving between entities through links of
-- confidence >= {{linkable_confidence}} (a_entity_flows), amounts in litoshi.
SELECT from_entity, from_category, to_entity, to_category, links, expected_links, amount::BIGINT AS amount_litoshi
FROM a_entity_flows
ORDER BY links DESC, from_entity, from_category NULLS FIRST, to_entity, to_category NULLS FIRST
