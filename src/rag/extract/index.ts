// Public surface of document extraction (file → text), used by the indexer and the documents server.
export { createExtractor, WorkerExtractor, type CreateExtractorOptions } from './create-extractor.js';
export { createSafeFetch, FetchError, type FetchUrl, type FetchUrlOptions, type FetchedBody, type SafeFetchOptions } from './safe-fetch.js';
export { formatOfPath, SUPPORTED_EXTENSIONS, type FileFormat } from './formats.js';
export { resolveExtractionLimits } from './limits.js';
