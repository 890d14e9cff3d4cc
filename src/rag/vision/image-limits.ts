// Bounds of image captioning: which images are worth a caption, how big they may be, and how long captioning may take.

/** Images narrower or shorter than this are rules, bullets or spacers: never captioned. */
export const MIN_IMAGE_SIDE_PX = 32;
/** Images with fewer pixels than this (e.g. 64×64 icons, 90×90 logos) are decorative: never captioned. */
export const MIN_IMAGE_PIXELS = 100 * 100;
/**
 * Images with more pixels than this are skipped before they are decoded (a decompression bomb costs 4 bytes a
 * pixel once decoded, and the pure-JavaScript JPEG decoder several times that: a 35 MP JPEG took 12 s and 1 GB
 * here). 25 MP still admits 24 MP camera photos and A4 pages scanned at 400 dpi (15.5 MP).
 */
export const MAX_IMAGE_PIXELS = 25_000_000;
/**
 * Longest side of an image sent to a model, in pixels. Bigger ones are downscaled: vision models work at about
 * 768–1,568 px anyway, and 1,600 px keeps 10-point text of a full A4 page legible (≈ 140 dpi).
 */
export const MAX_SENT_IMAGE_SIDE_PX = 1_600;
/** An encoded image above this is re-encoded as JPEG, then smaller, so a request stays bounded. */
export const MAX_SENT_IMAGE_BYTES = 1_500_000;
/** A scanned PDF page is rendered so its longer side has this many pixels (≈ 180 dpi on A4, enough for OCR). */
export const SCAN_RENDER_LONG_SIDE_PX = 2_100;
/** Images (scanned pages included) captioned per file; the rest are left out with a warning. */
export const MAX_IMAGES_PER_FILE = 100;
/** Encoded bytes of the images one file hands to the host; past it the rest are left out with a warning. */
export const MAX_IMAGE_BYTES_PER_FILE = 64 * 2 ** 20;
/** Image operations looked at on one PDF page (a page with 5,000 tiny images is decorative, not 5,000 figures). */
export const MAX_IMAGE_OPS_PER_PDF_PAGE = 2_000;

/** A caption longer than this (a model repeating itself) is cut, with a warning, and not cached. */
export const MAX_CAPTION_CHARS = 8_000;
/** Tokens a vision model may write for one caption (≈ 4 characters a token, a little over MAX_CAPTION_CHARS). */
export const CAPTION_MAX_OUTPUT_TOKENS = 2_500;
/** One vision request. A 7B vision model on a CPU takes 20–60 s per image. */
export const VISION_CALL_TIMEOUT_MS = 90_000;
/** Retries of a failed vision request (429/5xx/network); a timeout is not worth repeating often. */
export const VISION_CALL_MAX_RETRIES = 1;
/** One Tesseract run on one image (a dense A4 page takes 1–4 s on one core). */
export const TESSERACT_TIMEOUT_MS = 60_000;
/** Failed captions in a row after which a file's other images are left out (the model is down or refuses them all). */
export const MAX_CAPTION_FAILURES_IN_A_ROW = 3;
/**
 * Captioning time for one file, after parsing. Past it the remaining images are left out with a warning and
 * the file is indexed with what it has: a 300-page scanned book must not hold the index for hours.
 */
export const CAPTION_BUDGET_PER_FILE_MS = 600_000;
