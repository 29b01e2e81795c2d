-- Sets pegins.source_address for the peg-ins of one scan batch (heights $1..$2):
-- the input address that contributed the most value to the peg-in transaction,
-- summed over its inputs from that address; a tie goes to the earliest input.
UPDATE pegins SET source_address = s.address
FROM (
  SELECT pegin_txid, address
  FROM (
    SELECT pegin_txid, address, sum(value) AS total, min(n) AS first_n
    FROM pegin_inputs
    WHERE height BETWEEN $1 AND $2 AND address IS NOT NULL
    GROUP BY pegin_txid, address
  )
  QUALIFY row_number() OVER (PARTITION BY pegin_txid ORDER BY total DESC, first_n) = 1
) AS s
WHERE pegins.txid = s.pegin_txid AND pegins.height BETWEEN $1 AND $2;
