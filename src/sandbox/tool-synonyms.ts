// Words people use for what tools do, grouped: a query word also finds tools named or described with another word of its group.
import { stem } from '../rag/text/stem.js';

/**
 * Each line one group of words meaning (nearly) the same to someone looking for a tool. Kept general: what people
 * say for common actions and objects, not the names of particular tools.
 */
const GROUPS = `
open navigate browse visit goto go load
add sum plus total addition
subtract minus difference away
multiply times product
divide division quotient ratio
remainder modulo mod modulus
power exponent raise pow
remove delete erase drop forget discard destroy
find search lookup look locate seek grep
show display view print tell
read content inside open
create make new insert generate init initialize
save write store persist
picture screenshot image capture snapshot photo
folder directory dir
file document doc
rename move
download fetch retrieve pull
upload push send publish attach
time clock hour timezone
date day calendar month
type enter input fill
key keyboard keystroke press hit
scroll wheel
dropdown select option choose pick menu
popup dialog alert confirm modal
undo reset revert rollback
history log past previous earlier last
change diff modify edit status
remember memory memorize know knowledge entity observation fact person people
link relate relation connect relationship
think reason reflect thought thinking sequential
column schema field structure
row record entry
sql query database db
window resize size bigger smaller large big dimension
dark theme light color scheme media
javascript js script code evaluate eval execute run
console log message
http request network traffic api call
video record recording film movie
subtitle caption transcript
compress gzip zip archive
environment env variable
cube cbrt
sine sin
cosine cos
tangent tan
thumbnail preview miniature
ascii unicode codepoint character letter char
internet web online website site webpage page url
commit version revision
stage index
branch switch checkout
stash aside shelve
blame author authorship
clone copy repository repo
markdown md
close quit exit shut
click tap button tick checkbox
hover mouseover
update change modify edit set alter
merge combine join integrate
latest newest recent current
tag mark label
ago relative since elapsed
profile account whoami identity authenticated login signin
conversation chat talk discussion session
retry rerun restart
reaction react emoji
validate valid lint verify
reply replies respond answer thread
todo task
`;

/** Weight of a match through a synonym, against 1 for the word itself. */
export const SYNONYM_WEIGHT = 0.7;

/** Stemmed word → its group's other stemmed words; built on the first search, not when the module loads. */
let groupsOf: Map<string, Set<string>> | undefined;

function groups(): Map<string, Set<string>> {
  if (groupsOf) return groupsOf;
  groupsOf = new Map();
  for (const line of GROUPS.split('\n')) {
    const members = line.split(/\s+/).filter(Boolean).map(stem);
    for (const member of members) {
      const known = groupsOf.get(member) ?? new Set<string>();
      for (const other of members) if (other !== member) known.add(other);
      groupsOf.set(member, known);
    }
  }
  return groupsOf;
}

/** The stemmed words that mean the same as stemmed word `term` (not itself); empty when it has none. */
export function synonymsOf(term: string): ReadonlySet<string> {
  return groups().get(term) ?? new Set();
}
