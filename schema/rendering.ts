/**
 * The types of two extensions and of one promotion draft, as a change to the MCP specification's `schema.ts`.
 *
 * - The rendering extension (`io.modelcontextprotocol/rendering`): {@link RenderingHints} in
 *   `Tool._meta["io.modelcontextprotocol/rendering"]`, {@link Rendering} in the same key of `CallToolResult._meta`.
 * - The result continuation extension (`mcp-rendering/result-continuation`): {@link ResultContinuationTool}
 *   and {@link ResultContinuation}, in that key of `Tool._meta` and `CallToolResult._meta`.
 * - Members added to existing interfaces (TypeScript merges interface declarations of one name): the two carrier
 *   keys of `Tool._meta` and `CallToolResult._meta`, every other key of `_meta` staying open; and the promotion
 *   draft's core form, `ToolAnnotations.verbatimHint`, `ToolAnnotations.summarizeOkHint` and
 *   `CallToolResult._rendering`, which a client reads only when explicitly enabled and only where the `_meta`
 *   carrier is absent.
 *
 * These types are the producer's contract: what a server validates before it sends a value. A reader does not
 * validate against them and never rejects a message because a value fails them: it reads every value, well-formed
 * or not, by the reading tables of the extension specifications, which give each malformed, unknown or repeated
 * member its own reading.
 *
 * The carriers admit no member they do not define (the JSON Schema says `additionalProperties: false`): a producer
 * that validates what it sends cannot send a misspelled member, and a reader reads one as the extension says.
 * A member that may be `null` means absent when `null`. Lengths count Unicode code points, not UTF-16 code units:
 * in JavaScript, count with `[...text].length`.
 *
 * The JSON Schema form of the same change is `delta/rendering.schema.json`; a test generates JSON Schema from this
 * file and fails when the two disagree on any member, type, requirement or limit.
 *
 * @module rendering
 */

/* BEGIN rendering */

/**
 * The tool hints, carried in `Tool._meta["io.modelcontextprotocol/rendering"]`.
 *
 * @example Verbatim
 * {@includeCode ./examples/RenderingHints/verbatim.json}
 *
 * @example Summarizing affirmed
 * {@includeCode ./examples/RenderingHints/summarize-ok.json}
 *
 * @category `tools/list`
 */
export interface RenderingHints {
  /**
   * If true, the results of this tool are meant to reach the user verbatim: every record, in the order given,
   * values unchanged, nothing left out.
   *
   * Default: false
   */
  verbatimHint?: boolean | null;

  /**
   * If true, the results of this tool may be summarized, shortened or reformatted; if `verbatimHint` is also
   * true, `verbatimHint` wins.
   *
   * Default: false
   */
  summarizeOkHint?: boolean | null;
}

/**
 * The result directive, carried in `CallToolResult._meta["io.modelcontextprotocol/rendering"]`.
 *
 * @example Verbatim with guidance
 * {@includeCode ./examples/Rendering/verbatim-with-guidance.json}
 *
 * @example Summarizable
 * {@includeCode ./examples/Rendering/summarizable-minimal.json}
 *
 * @example Part of a result
 * {@includeCode ./examples/Rendering/incomplete-page.json}
 *
 * @category `tools/call`
 */
export interface Rendering {
  /**
   * An open string with two registered values: `"verbatim"` (every record, in the order given, values
   * unchanged, nothing left out) and `"summarizable"` (the host may summarize, abridge or reformat). A client
   * reads any other string as `"verbatim"`, and a directive without a mode as `"verbatim"` too: the tool hints
   * decide only when the result has no directive.
   */
  mode?: string | null;

  /**
   * Brief presentation advice written by the server; advisory, never above the host's own instructions.
   *
   * @maxLength 1000
   */
  guidance?: string | null;

  /**
   * The text shown for a null value: not only white space or invisible characters (Default_Ignorable code
   * points, U+2800 BRAILLE PATTERN BLANK), no control or format character (Unicode general categories Cc and
   * Cf) and no character with a numeric value (Numeric_Type not None: categories Nd, Nl and No, and the
   * ideographs with a numeric value such as `一` and `十`, in any script), so that it can neither hide a null nor
   * pass for an amount; `"-"`, `"n/a"`, `"néant"` and `"無"` are usable. The pattern spells these characters out
   * as of Unicode 14.0.
   *
   * Default: "n/a"
   *
   * @minLength 1
   * @maxLength 16
   * @pattern ^[^\u0000-\u001F\u0030-\u0039\u007F-\u009F\u00AD\u00B2-\u00B3\u00B9\u00BC-\u00BE\u0600-\u0605\u061C\u0660-\u0669\u06DD\u06F0-\u06F9\u070F\u07C0-\u07C9\u0890-\u0891\u08E2\u0966-\u096F\u09E6-\u09EF\u09F4-\u09F9\u0A66-\u0A6F\u0AE6-\u0AEF\u0B66-\u0B6F\u0B72-\u0B77\u0BE6-\u0BF2\u0C66-\u0C6F\u0C78-\u0C7E\u0CE6-\u0CEF\u0D58-\u0D5E\u0D66-\u0D78\u0DE6-\u0DEF\u0E50-\u0E59\u0ED0-\u0ED9\u0F20-\u0F33\u1040-\u1049\u1090-\u1099\u1369-\u137C\u16EE-\u16F0\u17E0-\u17E9\u17F0-\u17F9\u180E\u1810-\u1819\u1946-\u194F\u19D0-\u19DA\u1A80-\u1A89\u1A90-\u1A99\u1B50-\u1B59\u1BB0-\u1BB9\u1C40-\u1C49\u1C50-\u1C59\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2070\u2074-\u2079\u2080-\u2089\u2150-\u2182\u2185-\u2189\u2460-\u249B\u24EA-\u24FF\u2776-\u2793\u2CFD\u3007\u3021-\u3029\u3038-\u303A\u3192-\u3195\u3220-\u3229\u3248-\u324F\u3251-\u325F\u3280-\u3289\u32B1-\u32BF\u3405\u3483\u382A\u3B4D\u4E00\u4E03\u4E07\u4E09\u4E5D\u4E8C\u4E94\u4E96\u4EBF-\u4EC0\u4EDF\u4EE8\u4F0D\u4F70\u5104\u5146\u5169\u516B\u516D\u5341\u5343-\u5345\u534C\u53C1-\u53C4\u56DB\u58F1\u58F9\u5E7A\u5EFE-\u5EFF\u5F0C-\u5F0E\u5F10\u62FE\u634C\u67D2\u6F06\u7396\u767E\u8086\u842C\u8CAE\u8CB3\u8D30\u9621\u9646\u964C\u9678\u96F6\uA620-\uA629\uA6E6-\uA6EF\uA830-\uA835\uA8D0-\uA8D9\uA900-\uA909\uA9D0-\uA9D9\uA9F0-\uA9F9\uAA50-\uAA59\uABF0-\uABF9\uF96B\uF973\uF978\uF9B2\uF9D1\uF9D3\uF9FD\uFEFF\uFF10-\uFF19\uFFF9-\uFFFB𐄇-𐄳𐅀-𐅸𐆊-𐆋𐋡-𐋻𐌠-𐌣𐍁𐍊𐏑-𐏕𐒠-𐒩𐡘-𐡟𐡹-𐡿𐢧-𐢯𐣻-𐣿𐤖-𐤛𐦼-𐦽𐧀-𐧏𐧒-𐧿𐩀-𐩈𐩽-𐩾𐪝-𐪟𐫫-𐫯𐭘-𐭟𐭸-𐭿𐮩-𐮯𐳺-𐳿𐴰-𐴹𐹠-𐹾𐼝-𐼦𐽑-𐽔𐿅-𐿋𑁒-𑁯𑂽𑃍𑃰-𑃹𑄶-𑄿𑇐-𑇙𑇡-𑇴𑋰-𑋹𑑐-𑑙𑓐-𑓙𑙐-𑙙𑛀-𑛉𑜰-𑜻𑣠-𑣲𑥐-𑥙𑱐-𑱬𑵐-𑵙𑶠-𑶩𑿀-𑿔𒐀-𒑮𓐰-𓐸𖩠-𖩩𖫀-𖫉𖭐-𖭙𖭛-𖭡𖺀-𖺖𛲠-𛲣𝅳-𝅺𝋠-𝋳𝍠-𝍸𝟎-𝟿𞅀-𞅉𞋰-𞋹𞣇-𞣏𞥐-𞥙𞱱-𞲫𞲭-𞲯𞲱-𞲴𞴁-𞴭𞴯-𞴽🄀-🄌🯰-🯹𠀁𠁤𠃢𠄡𠤪𠦃𠦌𠦜𠫪𠫽𠬙𢎐𢦘𣬛𦉭廾󠀁󠀠-󠁿]*[^\u0000-\u0020\u0030-\u0039\u007F-\u00A0\u00AD\u00B2-\u00B3\u00B9\u00BC-\u00BE\u034F\u0600-\u0605\u061C\u0660-\u0669\u06DD\u06F0-\u06F9\u070F\u07C0-\u07C9\u0890-\u0891\u08E2\u0966-\u096F\u09E6-\u09EF\u09F4-\u09F9\u0A66-\u0A6F\u0AE6-\u0AEF\u0B66-\u0B6F\u0B72-\u0B77\u0BE6-\u0BF2\u0C66-\u0C6F\u0C78-\u0C7E\u0CE6-\u0CEF\u0D58-\u0D5E\u0D66-\u0D78\u0DE6-\u0DEF\u0E50-\u0E59\u0ED0-\u0ED9\u0F20-\u0F33\u1040-\u1049\u1090-\u1099\u115F-\u1160\u1369-\u137C\u1680\u16EE-\u16F0\u17B4-\u17B5\u17E0-\u17E9\u17F0-\u17F9\u180B-\u1819\u1946-\u194F\u19D0-\u19DA\u1A80-\u1A89\u1A90-\u1A99\u1B50-\u1B59\u1BB0-\u1BB9\u1C40-\u1C49\u1C50-\u1C59\u2000-\u200F\u2028-\u202F\u205F-\u2070\u2074-\u2079\u2080-\u2089\u2150-\u2182\u2185-\u2189\u2460-\u249B\u24EA-\u24FF\u2776-\u2793\u2800\u2CFD\u3000\u3007\u3021-\u3029\u3038-\u303A\u3164\u3192-\u3195\u3220-\u3229\u3248-\u324F\u3251-\u325F\u3280-\u3289\u32B1-\u32BF\u3405\u3483\u382A\u3B4D\u4E00\u4E03\u4E07\u4E09\u4E5D\u4E8C\u4E94\u4E96\u4EBF-\u4EC0\u4EDF\u4EE8\u4F0D\u4F70\u5104\u5146\u5169\u516B\u516D\u5341\u5343-\u5345\u534C\u53C1-\u53C4\u56DB\u58F1\u58F9\u5E7A\u5EFE-\u5EFF\u5F0C-\u5F0E\u5F10\u62FE\u634C\u67D2\u6F06\u7396\u767E\u8086\u842C\u8CAE\u8CB3\u8D30\u9621\u9646\u964C\u9678\u96F6\uA620-\uA629\uA6E6-\uA6EF\uA830-\uA835\uA8D0-\uA8D9\uA900-\uA909\uA9D0-\uA9D9\uA9F0-\uA9F9\uAA50-\uAA59\uABF0-\uABF9\uF96B\uF973\uF978\uF9B2\uF9D1\uF9D3\uF9FD\uFE00-\uFE0F\uFEFF\uFF10-\uFF19\uFFA0\uFFF0-\uFFFB𐄇-𐄳𐅀-𐅸𐆊-𐆋𐋡-𐋻𐌠-𐌣𐍁𐍊𐏑-𐏕𐒠-𐒩𐡘-𐡟𐡹-𐡿𐢧-𐢯𐣻-𐣿𐤖-𐤛𐦼-𐦽𐧀-𐧏𐧒-𐧿𐩀-𐩈𐩽-𐩾𐪝-𐪟𐫫-𐫯𐭘-𐭟𐭸-𐭿𐮩-𐮯𐳺-𐳿𐴰-𐴹𐹠-𐹾𐼝-𐼦𐽑-𐽔𐿅-𐿋𑁒-𑁯𑂽𑃍𑃰-𑃹𑄶-𑄿𑇐-𑇙𑇡-𑇴𑋰-𑋹𑑐-𑑙𑓐-𑓙𑙐-𑙙𑛀-𑛉𑜰-𑜻𑣠-𑣲𑥐-𑥙𑱐-𑱬𑵐-𑵙𑶠-𑶩𑿀-𑿔𒐀-𒑮𓐰-𓐸𖩠-𖩩𖫀-𖫉𖭐-𖭙𖭛-𖭡𖺀-𖺖𛲠-𛲣𝅳-𝅺𝋠-𝋳𝍠-𝍸𝟎-𝟿𞅀-𞅉𞋰-𞋹𞣇-𞣏𞥐-𞥙𞱱-𞲫𞲭-𞲯𞲱-𞲴𞴁-𞴭𞴯-𞴽🄀-🄌🯰-🯹𠀁𠁤𠃢𠄡𠤪𠦃𠦌𠦜𠫪𠫽𠬙𢎐𢦘𣬛𦉭廾󠀀-󠿿][^\u0000-\u001F\u0030-\u0039\u007F-\u009F\u00AD\u00B2-\u00B3\u00B9\u00BC-\u00BE\u0600-\u0605\u061C\u0660-\u0669\u06DD\u06F0-\u06F9\u070F\u07C0-\u07C9\u0890-\u0891\u08E2\u0966-\u096F\u09E6-\u09EF\u09F4-\u09F9\u0A66-\u0A6F\u0AE6-\u0AEF\u0B66-\u0B6F\u0B72-\u0B77\u0BE6-\u0BF2\u0C66-\u0C6F\u0C78-\u0C7E\u0CE6-\u0CEF\u0D58-\u0D5E\u0D66-\u0D78\u0DE6-\u0DEF\u0E50-\u0E59\u0ED0-\u0ED9\u0F20-\u0F33\u1040-\u1049\u1090-\u1099\u1369-\u137C\u16EE-\u16F0\u17E0-\u17E9\u17F0-\u17F9\u180E\u1810-\u1819\u1946-\u194F\u19D0-\u19DA\u1A80-\u1A89\u1A90-\u1A99\u1B50-\u1B59\u1BB0-\u1BB9\u1C40-\u1C49\u1C50-\u1C59\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2070\u2074-\u2079\u2080-\u2089\u2150-\u2182\u2185-\u2189\u2460-\u249B\u24EA-\u24FF\u2776-\u2793\u2CFD\u3007\u3021-\u3029\u3038-\u303A\u3192-\u3195\u3220-\u3229\u3248-\u324F\u3251-\u325F\u3280-\u3289\u32B1-\u32BF\u3405\u3483\u382A\u3B4D\u4E00\u4E03\u4E07\u4E09\u4E5D\u4E8C\u4E94\u4E96\u4EBF-\u4EC0\u4EDF\u4EE8\u4F0D\u4F70\u5104\u5146\u5169\u516B\u516D\u5341\u5343-\u5345\u534C\u53C1-\u53C4\u56DB\u58F1\u58F9\u5E7A\u5EFE-\u5EFF\u5F0C-\u5F0E\u5F10\u62FE\u634C\u67D2\u6F06\u7396\u767E\u8086\u842C\u8CAE\u8CB3\u8D30\u9621\u9646\u964C\u9678\u96F6\uA620-\uA629\uA6E6-\uA6EF\uA830-\uA835\uA8D0-\uA8D9\uA900-\uA909\uA9D0-\uA9D9\uA9F0-\uA9F9\uAA50-\uAA59\uABF0-\uABF9\uF96B\uF973\uF978\uF9B2\uF9D1\uF9D3\uF9FD\uFEFF\uFF10-\uFF19\uFFF9-\uFFFB𐄇-𐄳𐅀-𐅸𐆊-𐆋𐋡-𐋻𐌠-𐌣𐍁𐍊𐏑-𐏕𐒠-𐒩𐡘-𐡟𐡹-𐡿𐢧-𐢯𐣻-𐣿𐤖-𐤛𐦼-𐦽𐧀-𐧏𐧒-𐧿𐩀-𐩈𐩽-𐩾𐪝-𐪟𐫫-𐫯𐭘-𐭟𐭸-𐭿𐮩-𐮯𐳺-𐳿𐴰-𐴹𐹠-𐹾𐼝-𐼦𐽑-𐽔𐿅-𐿋𑁒-𑁯𑂽𑃍𑃰-𑃹𑄶-𑄿𑇐-𑇙𑇡-𑇴𑋰-𑋹𑑐-𑑙𑓐-𑓙𑙐-𑙙𑛀-𑛉𑜰-𑜻𑣠-𑣲𑥐-𑥙𑱐-𑱬𑵐-𑵙𑶠-𑶩𑿀-𑿔𒐀-𒑮𓐰-𓐸𖩠-𖩩𖫀-𖫉𖭐-𖭙𖭛-𖭡𖺀-𖺖𛲠-𛲣𝅳-𝅺𝋠-𝋳𝍠-𝍸𝟎-𝟿𞅀-𞅉𞋰-𞋹𞣇-𞣏𞥐-𞥙𞱱-𞲫𞲭-𞲯𞲱-𞲴𞴁-𞴭𞴯-𞴽🄀-🄌🯰-🯹𠀁𠁤𠃢𠄡𠤪𠦃𠦌𠦜𠫪𠫽𠬙𢎐𢦘𣬛𦉭廾󠀁󠀠-󠁿]*$
   */
  nullDisplay?: string | null;

  /**
   * True when the result holds every record, false when it holds only part of them. Required: a directive that
   * does not state it is read as "completeness not stated", and shown as partial.
   */
  complete: boolean;
}

/* END rendering */

/* BEGIN result-continuation */

/**
 * Carried in `Tool._meta["mcp-rendering/result-continuation"]` by a tool whose results may come in
 * parts.
 *
 * @example A cursor argument
 * {@includeCode ./examples/ResultContinuationTool/cursor.json}
 *
 * @category `tools/list`
 */
export interface ResultContinuationTool {
  /**
   * The tool argument that receives continuation tokens, declared in the tool's `inputSchema` as an optional
   * string property.
   *
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z_][A-Za-z0-9_]{0,63}$
   */
  argument: string;
}

/**
 * Carried in `CallToolResult._meta["mcp-rendering/result-continuation"]` on every part of a result but
 * the last: call the same tool with the original arguments plus `argument` set to `token`.
 *
 * @example The first part of a result
 * {@includeCode ./examples/ResultContinuation/incomplete-page.json}
 *
 * @category `tools/call`
 */
export interface ResultContinuation {
  /**
   * The tool argument to set: the tool's {@link ResultContinuationTool.argument}.
   *
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z_][A-Za-z0-9_]{0,63}$
   */
  argument: string;

  /**
   * Opaque to the client; made and checked by the server.
   *
   * @minLength 1
   * @maxLength 4096
   * @pattern ^[A-Za-z0-9._~-]+$
   */
  token: string;

  /**
   * When the server stops accepting the token: an RFC 3339 time in UTC (`Z`), its month, day, hour, minute and
   * second in range (no leap second). A server always states it; a client that receives a continuation without it
   * still follows the token until the server refuses it.
   *
   * @pattern ^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$
   */
  expiresAt: string;
}

/* END result-continuation */

/* BEGIN existing */

/**
 * The members added to the existing {@link Tool} interface: the two carrier keys of its `_meta`. In the
 * specification's `schema.ts` they narrow the type of the existing `_meta` member; every other key keeps the type
 * upstream gives it.
 *
 * @example A verbatim tool
 * {@includeCode ./examples/Tool/verbatim-income-statement.json}
 *
 * @example A tool whose results may come in parts
 * {@includeCode ./examples/Tool/paged-ledger.json}
 *
 * @category `tools/list`
 */
export interface Tool {
  /**
   * The carrier keys of the two extensions; any other key is as upstream defines it.
   */
  _meta?: {
    "io.modelcontextprotocol/rendering"?: RenderingHints;
    "mcp-rendering/result-continuation"?: ResultContinuationTool;
    [key: string]: unknown;
  };
}

/**
 * Promotion draft: members added to the existing {@link ToolAnnotations} interface, the core form of
 * {@link RenderingHints}. Typed for the producer; a client reads them only when explicitly enabled and only where
 * the `_meta` carrier is absent, leniently, as it reads the carrier.
 *
 * @example Verbatim, read-only tool
 * {@includeCode ./examples/ToolAnnotations/verbatim-read-only.json}
 *
 * @example Summarizing affirmed
 * {@includeCode ./examples/ToolAnnotations/summarize-ok.json}
 *
 * @category `tools/list`
 */
export interface ToolAnnotations {
  /**
   * As {@link RenderingHints.verbatimHint}.
   */
  verbatimHint?: boolean | null;

  /**
   * As {@link RenderingHints.summarizeOkHint}.
   */
  summarizeOkHint?: boolean | null;
}

/**
 * The members added to the existing {@link CallToolResult} interface: the two carrier keys of its `_meta`, which
 * narrow the type of the existing `_meta` member in the specification's `schema.ts` (every other key keeps the
 * type upstream gives it), and the promotion draft's `_rendering`, the core form of {@link Rendering}. A client
 * reads `_rendering` only when explicitly enabled and only where the `_meta` carrier is absent, leniently, as it
 * reads the carrier.
 *
 * @example A part of a result, with its continuation
 * {@includeCode ./examples/CallToolResult/incomplete-page.json}
 *
 * @example The core form beside the `_meta` carrier
 * {@includeCode ./examples/CallToolResult/core-and-meta.json}
 *
 * @category `tools/call`
 */
export interface CallToolResult {
  /**
   * The carrier keys of the two extensions; any other key is as upstream defines it.
   */
  _meta?: {
    "io.modelcontextprotocol/rendering"?: Rendering;
    "mcp-rendering/result-continuation"?: ResultContinuation;
    [key: string]: unknown;
  };

  /**
   * The core form of the directive carried in `_meta["io.modelcontextprotocol/rendering"]`.
   */
  _rendering?: Rendering | null;
}

/* END existing */
