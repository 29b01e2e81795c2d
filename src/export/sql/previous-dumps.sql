-- The previous release's dump files (x_prev_files), which unchanged partitions are carried over from.
SELECT path, size, sha256 FROM x_prev_files WHERE starts_with(path, 'dumps/')
