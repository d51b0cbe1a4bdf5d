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
   * reads any other string as `"verbatim"`. When absent, the tool hints decide.
   */
  mode?: string | null;

  /**
   * Brief presentation advice written by the server; advisory, never above the host's own instructions.
   *
   * @maxLength 1000
   */
  guidance?: string | null;

  /**
   * The text shown for a null value: printable Latin letters, punctuation and dashes, single spaces between
   * them, no digit or numeral character of any script, and at least one letter that resembles no digit (one of
   * `ACEFHKMNPRUVWXY` or `acdefhkmnprtuvwxy`), so that it cannot hide a null or pass for an amount (a dash reads
   * as zero, `O.OO` as 0.00 in a financial statement).
   *
   * Default: "n/a"
   *
   * @minLength 1
   * @maxLength 16
   * @pattern ^([!-/:-~¡-¬®-±´-¸º»¿-ÿĀ-ſ‐-‧‰-⁞]+ )*[!-/:-~¡-¬®-±´-¸º»¿-ÿĀ-ſ‐-‧‰-⁞]*[ACEFHKMNPRU-Yac-fhkmnprt-y][!-/:-~¡-¬®-±´-¸º»¿-ÿĀ-ſ‐-‧‰-⁞]*( [!-/:-~¡-¬®-±´-¸º»¿-ÿĀ-ſ‐-‧‰-⁞]+)*$
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
