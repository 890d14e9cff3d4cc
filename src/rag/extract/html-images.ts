// Images of an HTML page for captioning: <img> with data: URIs become placeholders; nothing is fetched.
import type { CheerioAPI } from 'cheerio';
import type { ImageCollector } from './image-collector.js';

/** `data:image/png;base64,...` (and jpeg, gif, webp, bmp); other data: URIs (SVG, text) are not images we read. */
const DATA_IMAGE_URI = /^data:image\/(?:png|jpe?g|gif|webp|bmp);base64,/iu;

/**
 * Replaces each `<img>` whose src is a base64 data: URI with the placeholder of its caption (or its alt text when
 * the image is skipped), in document order. Images at http(s) or relative URLs are left as they are (their alt
 * text), so indexing never touches the network.
 */
export async function replaceHtmlImages($: CheerioAPI, images: ImageCollector, name: string): Promise<void> {
  const elements = $('img').toArray();
  let number = 0;
  for (const element of elements) {
    if (images.full()) break;
    const src = $(element).attr('src')?.trim() ?? '';
    const prefix = DATA_IMAGE_URI.exec(src);
    if (!prefix) continue;
    number++;
    const bytes = Buffer.from(src.slice(prefix[0].length), 'base64');
    const placeholder = await images.addEncoded(bytes, { kind: 'figure', page: 1, label: `${name} image ${number}` });
    if (placeholder) $(element).replaceWith(` ${placeholder} `);
    else $(element).attr('src', '');
  }
}
