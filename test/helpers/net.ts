/**
 * A URL where nothing can ever answer: Linux refuses every connection to port
 * 0 (ECONNREFUSED), so a test of a node that is down needs no free port
 * picked beforehand, which another process could take before the test connects.
 */
export const REFUSED_URL = 'http://127.0.0.1:0';
