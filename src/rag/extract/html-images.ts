// Images of an HTML page for captioning: <img> with data: URIs become placeholders; nothing is fetched.
import type { CheerioAPI } from 'cheerio';
import { formatOfPath } from './formats.js';
import type { ImageCollector } from './image-collector.js';

/** `data:image/png;base64,...` (and jpeg, gif, webp, bmp); other data: URIs (SVG, text) are not images we read. */
const DATA_IMAGE_URI = /^data:image\/(?:png|jpe?g|gif|webp|bmp);base64,/iu;
/** A relative path (no scheme, not rooted), before any query or fragment; an image file when its extension says so. */
const RELATIVE_SRC = /^(?![a-z][a-z0-9+.-]*:)(?![/\\])([^?#]+)(?:[?#].*)?$/iu;

/**
 * Replaces each `<img>` whose src is a base64 data: URI, or a relative path to an image file beside the page
 * (read later by the host, inside the documents folder only), with the placeholder of its caption, in document
 * order. Images at http(s) URLs keep their alt text: indexing never touches the network.
 */
export async function replaceHtmlImages($: CheerioAPI, images: ImageCollector, name: string): Promise<void> {
  const elements = $('img').toArray();
  let number = 0;
  for (const element of elements) {
    if (images.full()) break;
    const src = $(element).attr('src')?.trim() ?? '';
    const local = RELATIVE_SRC.exec(src);
    if (local && formatOfPath(local[1]!) === 'image') {
      const placeholder = images.addLocal(safeDecode(local[1]!), 1);
      if (placeholder) $(element).replaceWith(` ${placeholder} `);
      continue;
    }
    const prefix = DATA_IMAGE_URI.exec(src);
    if (!prefix) continue;
    number++;
    const bytes = Buffer.from(src.slice(prefix[0].length), 'base64');
    const placeholder = await images.addEncoded(bytes, { kind: 'figure', page: 1, label: `${name} image ${number}` });
    if (placeholder) $(element).replaceWith(` ${placeholder} `);
    else $(element).attr('src', '');
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
