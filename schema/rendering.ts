/**
 * The rendering extension (`io.modelcontextprotocol/rendering`) as a change to the MCP specification's `schema.ts`.
 *
 * This file holds only what the change adds. New types are complete declarations. `ToolAnnotations` and
 * `CallToolResult` already exist in `schema.ts`: the declarations of the same name below list only the members the
 * change adds to them (TypeScript merges interface declarations of one name, so pasting these members into the
 * existing interfaces and merging the declarations are the same edit). No existing member changes.
 *
 * Today the values travel under `_meta["io.modelcontextprotocol/rendering"]`: on `Tool` as {@link RenderingHints},
 * on `CallToolResult` as {@link Rendering}. The `ToolAnnotations` and `CallToolResult` members below are the core
 * form of the same values, which a later revision can promote; a host reads a core member only where the `_meta`
 * carrier holds no value for it (missing or null), or a malformed `guidance` or `nullDisplay`: a malformed value
 * of any other member decides there, as its safe reading.
 *
 * Every member defined here may be `null`, which means absent. Lengths (`@maxLength`, `@minLength`) count Unicode
 * code points, not UTF-16 code units: in JavaScript, count with `[...text].length`, not `text.length`.
 *
 * The JSON Schema form of the same change is `delta/rendering.schema.json`; a test generates JSON Schema from this
 * file and fails when the two disagree on any member, type, requirement or limit.
 *
 * @module rendering
 */

/* The carriers' types */

/**
 * The tool-level hints, carried in `Tool._meta["io.modelcontextprotocol/rendering"]` (the normative carrier).
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
   * If true, the server states that the results of this tool may be summarized, shortened or reformatted. It has
   * an effect only when `verbatimHint` is not true; if both are true, `verbatimHint` wins.
   *
   * Default: false
   */
  summarizeOkHint?: boolean | null;
}

/**
 * A server's directive on how to present one tool result.
 *
 * Each member is read on its own: a malformed member reads as the value that shows more (a malformed `mode` as
 * verbatim, a malformed `complete` as false) and the others still apply. Clients ignore members they do not know, so
 * later revisions can add members without breaking older hosts.
 *
 * @example Verbatim with guidance
 * {@includeCode ./examples/Rendering/verbatim-with-guidance.json}
 *
 * @example Summarizable, nothing else said
 * {@includeCode ./examples/Rendering/summarizable-minimal.json}
 *
 * @example Bounded page
 * {@includeCode ./examples/Rendering/incomplete-page.json}
 *
 * @category `tools/call`
 */
export interface Rendering {
  /**
   * The presentation the server asks for. An open string with two registered values:
   *
   * - `"verbatim"`: every record, in the order given, values unchanged, nothing left out;
   * - `"summarizable"`: the host may summarize, abridge or reformat.
   *
   * A host presents any other string as `"verbatim"`. When absent, the tool's hints decide.
   */
  mode?: string | null;

  /**
   * Brief presentation advice written by the server, for the host and the model. It is advisory and never
   * outranks the host's own instructions.
   *
   * @maxLength 1000
   */
  guidance?: string | null;

  /**
   * What a host prints in place of a null value when it presents the result verbatim.
   *
   * Default: "-"
   *
   * @maxLength 16
   */
  nullDisplay?: string | null;

  /**
   * False when the result carries only part of the records (one bounded page).
   *
   * Default: true
   */
  complete?: boolean | null;

  /**
   * Where the rest of an incomplete result can be fetched.
   */
  continuation?: RenderingContinuation | null;
}

/**
 * Fetching the remainder of an incomplete result: call the same tool again with the same arguments, plus the
 * argument named `argument` set to `token`. Clients treat the token as opaque.
 *
 * @category `tools/call`
 */
export interface RenderingContinuation {
  /**
   * The name of the tool argument that receives the continuation token.
   *
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z_][A-Za-z0-9_]*$
   */
  argument: string;

  /**
   * The continuation token, opaque to the client; the server creates and checks it.
   *
   * @minLength 1
   * @maxLength 4096
   * @pattern ^[A-Za-z0-9._~-]+$
   */
  token: string;
}

/* The core form, for promotion: members added to existing interfaces */

/* Tool annotations: the core form of RenderingHints */

/**
 * Members that the rendering extension adds to the existing {@link ToolAnnotations} interface
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint` and `title` stay as they are).
 *
 * Like every annotation, these are hints: a client decides how much to trust them.
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
   * The core form of {@link RenderingHints.verbatimHint}.
   *
   * Default: false
   */
  verbatimHint?: boolean | null;

  /**
   * The core form of {@link RenderingHints.summarizeOkHint}.
   *
   * Default: false
   */
  summarizeOkHint?: boolean | null;
}

/* Tool call results: the core form of Rendering */

/**
 * Members that the rendering extension adds to the existing {@link CallToolResult} interface
 * (its existing members, such as `content`, `structuredContent`, `isError` and `_meta`, stay as they are).
 *
 * @example Verbatim result, as the reference builder makes it
 * {@includeCode ./examples/CallToolResult/verbatim-statement.json}
 *
 * @example Incomplete page with a continuation
 * {@includeCode ./examples/CallToolResult/incomplete-page.json}
 *
 * @example The core form beside the `_meta` carrier
 * {@includeCode ./examples/CallToolResult/core-and-meta.json}
 *
 * @category `tools/call`
 */
export interface CallToolResult {
  /**
   * The core form of the directive carried in `_meta["io.modelcontextprotocol/rendering"]`.
   */
  _rendering?: Rendering | null;
}
