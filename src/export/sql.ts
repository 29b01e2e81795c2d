/**
 * The export's SQL lives in src/export/sql/, one file per statement or
 * script (the build copies them next to the compiled modules). The router
 * never imports this side: the api modules hold only pure shaping.
 */
import { readSql } from '../store/db.js';

/** The text of src/export/sql/<name>.sql. */
export const exportSql = (name: string): string => readSql(import.meta.url, `sql/${name}.sql`);
