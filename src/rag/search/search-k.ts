// How many passages one documents search returns: read by the library and by the documents server's tool schema,
// which then need not load the library (and faiss) to list its tools.
/** Most results one search returns. */
export const MAX_SEARCH_K = 20;
/** Results when the caller does not say. */
export const DEFAULT_SEARCH_K = 5;
