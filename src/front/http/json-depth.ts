// JSON nesting bound (DESIGN §7 "Bad bodies"): a body nested deeper than 64 levels is refused
// before it is parsed, because everything downstream (JSON.stringify, msgpack, validators) recurses
// and would overflow the stack on it. Ordinary bodies have few brackets and are passed by a native
// indexOf count (a few % of the parse it guards); only the others are scanned character by character.

export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;

/** Whether `text` holds more than `max` opening brackets (in strings or not). */
function bracketsExceed(text: string, max: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++n > max) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++n > max) return true;
  return false;
}

export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting deeper than `max` takes at least max + 1 opening brackets.
  if (text.length <= max || !bracketsExceed(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}
