// Test helper: the indexer tests' starting point: fresh temp folders holding three sample documents (markdown, text,
// and HTML in a subfolder), and a FakeExtractor over the documents folder.
import { FakeExtractor } from './fake-extractor.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

export async function makeSampleDocuments(): Promise<{ folders: TempFolders; extractor: FakeExtractor }> {
  const folders = await makeTempFolders();
  const extractor = new FakeExtractor(folders.documentsDir);
  await folders.write('tesla.md', '# Tesla\n\nNikola Tesla designed the alternating current induction motor.');
  await folders.write('oxygen.txt', 'Oxygen is a chemical element with symbol O and atomic number 8.');
  await folders.write('notes/warsaw.html', '<html><body><h1>Warsaw</h1><p>Warsaw is the capital of Poland, on the Vistula river.</p></body></html>');
  return { folders, extractor };
}
