/**
 * Spacing, punctuation and symbols of ASCII, lowest first, in the order of Unicode's default
 * collation (what `localeCompare` and PostgreSQL's ICU collations follow): all of them sort
 * before digits, and digits before letters.
 */
const PUNCTUATION = '\t\n\u000b\f\r _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$'

/**
 * Accents of Latin letters in the order the default collation ranks them (acute, grave, breve,
 * circumflex, caron, ring, diaeresis, double acute, tilde, dot above, cedilla, ogonek, macron);
 * other combining marks of the same block follow by code point.
 */
const ACCENTS = '\u0301\u0300\u0306\u0302\u030c\u030a\u0308\u030b\u0303\u0307\u0327\u0328\u0304'

/** Weights are code points above SEPARATOR, so that a shorter level sorts first. */
const SEPARATOR = '\u0001'
const BASE = 0x02
const MARK = /\p{M}/u
/** Control characters other than spacing weigh nothing at any level, as in the default collation. */
const IGNORABLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/

const primaryOf = (char: string): string => {
  const punctuation = PUNCTUATION.indexOf(char)
  return punctuation >= 0 ? String.fromCharCode(BASE + punctuation) : char.toLowerCase()
}

const accentWeight = (mark: string): string => {
  const rank = ACCENTS.indexOf(mark)
  if (rank >= 0) return String.fromCharCode(BASE + 1 + rank)
  const code = mark.codePointAt(0)!
  return code >= 0x300 && code <= 0x36f ? String.fromCharCode(BASE + 1 + ACCENTS.length + code - 0x300) : mark
}

/**
 * A dashboard name as a key whose plain code-point order (what SQLite and MongoDB sort by) is the
 * order of the default collation for names in Latin letters, digits and ASCII punctuation: letters
 * first without case or accents, then accents, then lower case before upper case. Other letters
 * sort after `z` by code point. Both stores can then order and page the list themselves.
 */
export const listOrderKey = (name: string | null): string => {
  let primary = ''
  let secondary = ''
  let tertiary = ''
  for (const char of (name ?? '').normalize('NFD')) {
    if (IGNORABLE.test(char)) continue
    if (MARK.test(char)) {
      secondary += accentWeight(char)
      tertiary += String.fromCharCode(BASE)
      continue
    }
    primary += primaryOf(char)
    secondary += String.fromCharCode(BASE)
    tertiary += String.fromCharCode(char === char.toLowerCase() ? BASE : BASE + 1)
  }
  return `${primary}${SEPARATOR}${secondary}${SEPARATOR}${tertiary}`
}
