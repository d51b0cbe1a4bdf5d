/**
 * The interfaces of the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) that a scenario
 * implements, restated here so that the rendering scenarios compile and run outside the suite and can be moved
 * into its src/scenarios/ unchanged (only the import path changes). Declarations only: nothing here runs.
 */

/** The outcome of one check. Only SUCCESS and FAILURE count towards a pass rate. */
export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

/** A pointer into the specification a check enforces. */
export interface SpecReference {
  /** The requirement's identifier; for this extension, the check id of sep/conformance/sep-0000.yaml. */
  id: string;
  /** Where the requirement is written. */
  url?: string;
}

/** One judged requirement, as written to checks.json (an array of these per scenario run). */
export interface ConformanceCheck {
  id: string;
  /** A short human name. */
  name: string;
  /** What was checked, in one sentence. */
  description: string;
  status: CheckStatus;
  /** ISO 8601 time at which the check was judged. */
  timestamp: string;
  specReferences?: SpecReference[];
  /** What was observed, for a reader of the results. */
  details?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Why the check failed, when it did. */
  errorMessage?: string;
  logs?: string[];
}

/** The protocol revisions a scenario targets. */
export type SpecVersion = '2025-03-26' | '2025-06-18' | '2025-11-25' | 'draft' | 'extension';

/** What a client-judging scenario hands to the client it starts. */
export interface ScenarioUrls {
  /** The MCP endpoint the scenario serves; the runner passes it to the client as its last argument. */
  serverUrl: string;
  authUrl?: string;
  /** Scenario data for the client, passed as JSON in the MCP_CONFORMANCE_CONTEXT environment variable. */
  context?: Record<string, unknown>;
}

/**
 * A scenario in which the suite plays the server and judges a client. The runner calls start(), runs the client
 * command with the server URL appended (MCP_CONFORMANCE_SCENARIO names the scenario), waits for it to exit, then
 * calls getChecks() and finally stop().
 */
export interface Scenario {
  name: string;
  description: string;
  specVersions: SpecVersion[];
  /** When true, a client that exits non-zero does not by itself fail the run. */
  allowClientError?: boolean;
  start(): Promise<ScenarioUrls>;
  stop(): Promise<void>;
  getChecks(): ConformanceCheck[];
}

/** A scenario in which the suite plays the client and judges the server at serverUrl. */
export interface ClientScenario {
  name: string;
  description: string;
  specVersions: SpecVersion[];
  run(serverUrl: string): Promise<ConformanceCheck[]>;
}
