-- One page of x_fetch (fetch-plan.sql): rows numbered above $1 up to $2.
SELECT * EXCLUDE (rn, file_size, file_sha256) FROM x_fetch WHERE rn > $1 AND rn <= $2 ORDER BY rn
