/**
 * The wire rules of the rendering extension (io.modelcontextprotocol/rendering) that both of its scenarios share:
 * the carrier key, the members of each carrier, and what makes a carrier value well-formed.
 */

export const RENDERING_EXTENSION_ID = 'io.modelcontextprotocol/rendering';

export const RENDERING_SPEC_URL =
  'https://github.com/modelcontextprotocol/experimental-ext-tool-annotations/blob/main/specification/draft/rendering.mdx';

export function renderingRef(section: string): { id: string; url: string } {
  return {
    id: `rendering#${section}`,
    url: `${RENDERING_SPEC_URL}#${section}`
  };
}

export const TOOL_MEMBERS = ['verbatimHint', 'summarizeOkHint'] as const;
export const RESULT_MEMBERS = [
  'mode',
  'guidance',
  'nullDisplay',
  'complete'
] as const;
export const GUIDANCE_MAX_LENGTH = 1000;
export const NULL_DISPLAY_MAX_LENGTH = 16;

// The schema's pattern for a usable null text: printable Latin letters, punctuation and dashes, no digit, at least
// one letter that resembles no digit (a dash alone reads as zero, `O.OO` as 0.00 in a financial statement), single
// spaces between words
// (schema/delta/rendering.schema.json, `Rendering.nullDisplay`).
const NULL_TEXT_CHAR =
  '[\\u0021-\\u002F\\u003A-\\u007E\\u00A1-\\u00AC\\u00AE-\\u00B1\\u00B4-\\u00B8\\u00BA\\u00BB\\u00BF-\\u00FF\\u0100-\\u017F\\u2010-\\u2027\\u2030-\\u205E]';
const NULL_TEXT_LETTER = '[ACEFHKMNPRUVWXYacdefhkmnprtuvwxy]';
const USABLE_NULL_TEXT = new RegExp(
  `^(${NULL_TEXT_CHAR}+ )*${NULL_TEXT_CHAR}*${NULL_TEXT_LETTER}${NULL_TEXT_CHAR}*( ${NULL_TEXT_CHAR}+)*$`,
  'u'
);

function codePoints(text: string): number {
  return [...text].length;
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why a `nullDisplay` string is not a usable null text, or undefined when it is. */
export function nullDisplayProblem(value: string): string | undefined {
  if (codePoints(value) > NULL_DISPLAY_MAX_LENGTH)
    return `longer than ${NULL_DISPLAY_MAX_LENGTH} code points`;
  if (!USABLE_NULL_TEXT.test(value))
    return 'not a usable null text (empty, blank, a digit, no letter unlike a digit, or outside the schema pattern)';
  return undefined;
}

/**
 * Every way a carrier value breaks the types of the specification (an empty list when it is well-formed).
 * A null or absent member is allowed; unknown members are problems.
 */
export function carrierProblems(
  value: unknown,
  kind: 'tool' | 'result'
): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [`the ${kind} carrier is ${typeName(value)}, not an object`];
  }
  const problems: string[] = [];
  const members: readonly string[] =
    kind === 'tool' ? TOOL_MEMBERS : RESULT_MEMBERS;
  for (const [name, member] of Object.entries(
    value as Record<string, unknown>
  )) {
    if (!members.includes(name)) {
      problems.push(
        `unknown member ${JSON.stringify(name)} in the ${kind} carrier`
      );
      continue;
    }
    if (member === null) continue;
    if (
      name === 'verbatimHint' ||
      name === 'summarizeOkHint' ||
      name === 'complete'
    ) {
      if (typeof member !== 'boolean')
        problems.push(`${name} is ${typeName(member)}, not a boolean`);
    } else if (typeof member !== 'string') {
      problems.push(`${name} is ${typeName(member)}, not a string`);
    } else if (
      name === 'guidance' &&
      codePoints(member) > GUIDANCE_MAX_LENGTH
    ) {
      problems.push(
        `guidance is longer than ${GUIDANCE_MAX_LENGTH} code points`
      );
    } else if (name === 'nullDisplay') {
      const problem = nullDisplayProblem(member);
      if (problem) problems.push(`nullDisplay: ${problem}`);
    }
  }
  return problems;
}

/** The carrier value in a `_meta` object, or undefined when the `_meta` has none. */
export function carrierOf(holder: unknown): unknown {
  if (holder === null || typeof holder !== 'object') return undefined;
  const meta = (holder as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  return (meta as Record<string, unknown>)[RENDERING_EXTENSION_ID];
}
