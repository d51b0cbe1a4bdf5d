/**
 * The wire rules of the rendering extension (io.modelcontextprotocol/rendering) that its server and client
 * scenarios share: the carrier key, the members of each carrier, what makes a carrier value well-formed, and the
 * fixture tools a server under test provides.
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

/** A tool with hints and no required argument whose result carries a directive and records. */
export const STATEMENT_FIXTURE = 'test_rendering_statement';
/** The same records as the statement fixture, at most `limit` of them (all of them without `limit`). */
export const LIMITED_FIXTURE = 'test_rendering_limited';

const TOOL_MEMBERS = ['verbatimHint', 'summarizeOkHint'];
const RESULT_MEMBERS = ['mode', 'guidance', 'nullDisplay', 'complete'];
const BOOLEAN_MEMBERS = ['verbatimHint', 'summarizeOkHint', 'complete'];
const GUIDANCE_MAX_LENGTH = 1000;
const NULL_DISPLAY_MAX_LENGTH = 16;

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// A usable null text is 1 to 16 code points, not only white space or invisible characters, with no control or
// format character (Cc, Cf) and no character with a numeric value: category N of any script, and the ideographs
// with a numeric value outside it (Unicode 14.0's Unihan numerics, such as 一 and 十), listed after \p{N}.
const BLANK_TEXT = /^[\s\p{Z}\p{Default_Ignorable_Code_Point}\u2800]*$/u;
const FORBIDDEN_CHARACTER =
  /[\p{Cc}\p{Cf}\p{N}\u3405\u3483\u382A\u3B4D\u4E00\u4E03\u4E07\u4E09\u4E5D\u4E8C\u4E94\u4E96\u4EBF\u4EC0\u4EDF\u4EE8\u4F0D\u4F70\u5104\u5146\u5169\u516B\u516D\u5341\u5343-\u5345\u534C\u53C1-\u53C4\u56DB\u58F1\u58F9\u5E7A\u5EFE\u5EFF\u5F0C-\u5F0E\u5F10\u62FE\u634C\u67D2\u6F06\u7396\u767E\u8086\u842C\u8CAE\u8CB3\u8D30\u9621\u9646\u964C\u9678\u96F6\uF96B\uF973\uF978\uF9B2\uF9D1\uF9D3\uF9FD\u{20001}\u{20064}\u{200E2}\u{20121}\u{2092A}\u{20983}\u{2098C}\u{2099C}\u{20AEA}\u{20AFD}\u{20B19}\u{22390}\u{22998}\u{23B1B}\u{2626D}\u{2F890}]/u;

/** Why a `nullDisplay` string is not a usable null text, or undefined when it is. */
export function nullDisplayProblem(value: string): string | undefined {
  const length = [...value].length;
  if (length === 0 || length > NULL_DISPLAY_MAX_LENGTH)
    return `${length} code points, not 1 to ${NULL_DISPLAY_MAX_LENGTH}`;
  if (BLANK_TEXT.test(value)) return 'only white space or invisible characters';
  if (FORBIDDEN_CHARACTER.test(value))
    return 'a control, format or numeric character';
  return undefined;
}

/** Every way a carrier value breaks the types (an empty list when it is well-formed); `null` members are absent. */
export function carrierProblems(
  value: unknown,
  kind: 'tool' | 'result'
): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`the ${kind} carrier is ${typeName(value)}, not an object`];
  const members = kind === 'tool' ? TOOL_MEMBERS : RESULT_MEMBERS;
  const problems: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    if (!members.includes(name)) {
      problems.push(
        `a member the types do not define: ${JSON.stringify(name)}`
      );
    } else if (member === null) {
      continue;
    } else if (BOOLEAN_MEMBERS.includes(name)) {
      if (typeof member !== 'boolean')
        problems.push(`${name} is ${typeName(member)}, not a boolean`);
    } else if (typeof member !== 'string') {
      problems.push(`${name} is ${typeName(member)}, not a string`);
    } else if (
      name === 'guidance' &&
      [...member].length > GUIDANCE_MAX_LENGTH
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

/** The carrier value in a message's `_meta`, or undefined when it has none. */
export function carrierOf(holder: unknown): unknown {
  if (holder === null || typeof holder !== 'object') return undefined;
  const meta = (holder as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  return (meta as Record<string, unknown>)[RENDERING_EXTENSION_ID];
}

/** The records of a fixture result: its `structuredContent.records`, or undefined when it has no such array. */
export function recordsOf(result: unknown): unknown[] | undefined {
  const structured = (result as { structuredContent?: { records?: unknown } })
    ?.structuredContent;
  return Array.isArray(structured?.records) ? structured.records : undefined;
}
