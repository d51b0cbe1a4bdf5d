/**
 * The rendering extension (`io.modelcontextprotocol/rendering`) as a change to the MCP specification's `schema.ts`.
 *
 * This file holds only what the change adds. New types are complete declarations. `ToolAnnotations` and
 * `CallToolResult` already exist in `schema.ts`: the declarations of the same name below list only the members the
 * change adds to them (TypeScript merges interface declarations of one name, so pasting these members into the
 * existing interfaces and merging the declarations are the same edit). No existing member changes.
 *
 * The JSON Schema form of the same change is `delta/rendering.schema.json`; a test generates JSON Schema from this
 * file and fails when the two disagree on any member, type, requirement or limit.
 *
 * @module rendering
 */

/* Tool annotations: members added to the existing interface */

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
   * If true, the results of this tool are meant to reach the user verbatim: every item, in the order given, with
   * sections and subtotals kept, nothing paraphrased or dropped.
   *
   * Default: false
   */
  verbatimHint?: boolean;

  /**
   * If true, the server states that the results of this tool may be summarized, shortened or reformatted.
   * It only has an effect when `verbatimHint` is not true; if both are true, `verbatimHint` wins.
   *
   * Default: false
   */
  summarizeOkHint?: boolean;
}

/* Tool call results: members added to the existing interface */

/**
 * Members that the rendering extension adds to the existing {@link CallToolResult} interface
 * (its existing members, such as `content`, `structuredContent`, `isError` and `_meta`, stay as they are).
 *
 * @example Verbatim result with guidance
 * {@includeCode ./examples/CallToolResult/verbatim-with-rendering.json}
 *
 * @example Incomplete page with a continuation
 * {@includeCode ./examples/CallToolResult/incomplete-page-with-continuation.json}
 *
 * @example Financial statement with the model-facing copy in structuredContent
 * {@includeCode ./examples/CallToolResult/financial-statement-structured.json}
 *
 * @category `tools/call`
 */
export interface CallToolResult {
  /**
   * How the host should present this particular result. When present, it takes precedence over the tool's
   * `verbatimHint` and `summarizeOkHint` for this call.
   */
  _rendering?: Rendering;
}

/* New types */

/**
 * The two ways a server can ask a host to present a tool result.
 *
 * - `"verbatim"`: show every item, in the order given, with sections and subtotals kept and no paraphrase.
 * - `"summarizable"`: the host may summarize, shorten or reformat.
 *
 * @category `tools/call`
 */
export type RenderingMode = "verbatim" | "summarizable";

/**
 * A server's directive on how to present one tool result.
 *
 * Clients ignore members they do not know, so later revisions can add members without breaking older hosts.
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
   * The presentation the server asks for.
   */
  mode: RenderingMode;

  /**
   * Brief presentation advice written by the server, for the host and the model (for example, how empty cells are
   * shown). It is advisory and never outranks the host's own instructions.
   *
   * @maxLength 1000
   */
  guidance?: string;

  /**
   * What a host prints in place of a null value when it renders the result verbatim.
   *
   * Default: "-"
   *
   * @maxLength 16
   */
  nullDisplay?: string;

  /**
   * False when the result carries only part of the content (one bounded page). A host MUST NOT present an
   * incomplete verbatim result as if it were complete.
   *
   * Default: true
   */
  complete?: boolean;

  /**
   * Where the rest of an incomplete result can be fetched.
   */
  continuation?: RenderingContinuation;
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
   */
  token: string;
}

/**
 * The tool-level hints as carried in `Tool._meta["io.modelcontextprotocol/rendering"]`, the transitional carrier
 * for SDKs that drop annotation members they do not know. Same meaning and defaults as in {@link ToolAnnotations}.
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
   * See {@link ToolAnnotations.verbatimHint}.
   *
   * Default: false
   */
  verbatimHint?: boolean;

  /**
   * See {@link ToolAnnotations.summarizeOkHint}.
   *
   * Default: false
   */
  summarizeOkHint?: boolean;
}
