/**
 * The conformance runner of the rendering extension. Needs Node >= 22.18 (see scripts/node22.sh).
 *
 *   node conformance/run.ts [rendering|suite|all] --out DIR [--expected-failures FILE] [--python PATH]
 *   node conformance/run.ts server (--url URL | --example NAME [--plain] | --fixture broken) --out DIR
 *   node conformance/run.ts client --command "CLIENT COMMAND" --out DIR
 *
 * rendering  starts the financial and screening example servers, runs rendering-server against each and merges
 *            the two (a check passes if it passed wherever it applied and failed nowhere), writing
 *            DIR/server-rendering-server-<time>/checks.json; then runs rendering-client as the suite's client
 *            runner does, with conformance/reference_client.py as the client, writing
 *            DIR/client-rendering-client-<time>/checks.json.
 * suite      runs the published suite's default server scenarios against the screening example server twice, with
 *            the extension and with --plain, and writes DIR/suite-comparison.json (the status set of every
 *            scenario in each run, and whether the two runs are identical).
 * all        both. Exit 0 only when every check id of sep/conformance/sep-0000.yaml is SUCCESS (or an expected
 *            failure listed in --expected-failures, which must then really fail) and the suite runs are identical.
 * server     rendering-server alone against one server; exit 0 only when every check is SUCCESS.
 * client     rendering-client alone with another client command (split at spaces, the URL appended, as the
 *            suite's --command); exit 0 only when every check is SUCCESS.
 *
 * Every child process is stopped before the runner exits, whatever happens.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { startBrokenServer } from './fixtures/broken-server.ts';
import { RenderingClientScenario } from './src/scenarios/rendering-client.ts';
import { RenderingServerScenario, type RenderingServerOptions } from './src/scenarios/rendering-server.ts';
import type { CheckStatus, ConformanceCheck, Scenario } from './src/types.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const YAML_PATH = path.join(ROOT, 'sep', 'conformance', 'sep-0000.yaml');
const SUITE_JS = path.join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SUITE_VERSION = '0.1.16';
const CLIENT_TIMEOUT_MS = 30000;

interface Example {
  module: string;
  /** Other valid arguments of its tools, for the token binding probe (see RenderingServerOptions). */
  options: RenderingServerOptions;
}

const EXAMPLES: Record<string, Example> = {
  financial: { module: 'mcp_rendering.examples.financial', options: {} },
  screening: {
    module: 'mcp_rendering.examples.screening',
    options: { argumentVariants: { screening_report: [{ batch: 'onboarding-2025-q3' }] } }
  },
  orgchart: { module: 'mcp_rendering.examples.orgchart', options: {} }
};

// ---------------------------------------------------------------------------------------------- command line

interface Options {
  mode: 'rendering' | 'suite' | 'all' | 'server' | 'client';
  out: string;
  python: string;
  expectedFailures?: string;
  url?: string;
  example?: string;
  plain: boolean;
  fixture?: string;
  command?: string;
}

function usage(message: string): never {
  console.error(`run.ts: ${message}`);
  console.error(
    'usage: node conformance/run.ts [rendering|suite|all] --out DIR [--expected-failures FILE] [--python PATH]'
  );
  console.error(
    '       node conformance/run.ts server (--url URL | --example NAME [--plain] | --fixture broken) --out DIR'
  );
  console.error('       node conformance/run.ts client --command "CLIENT COMMAND" --out DIR');
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const options: Partial<Options> & { plain: boolean } = { plain: false };
  const value = (index: number, flag: string): string => {
    const next = argv[index + 1];
    if (next === undefined || next.startsWith('--')) usage(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out') options.out = value(i++, arg);
    else if (arg === '--python') options.python = value(i++, arg);
    else if (arg === '--expected-failures') options.expectedFailures = value(i++, arg);
    else if (arg === '--url') options.url = value(i++, arg);
    else if (arg === '--example') options.example = value(i++, arg);
    else if (arg === '--fixture') options.fixture = value(i++, arg);
    else if (arg === '--command') options.command = value(i++, arg);
    else if (arg === '--plain') options.plain = true;
    else if (['rendering', 'suite', 'all', 'server', 'client'].includes(arg) && options.mode === undefined) {
      options.mode = arg as Options['mode'];
    } else usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (!options.out) usage('--out DIR is required');
  const mode = options.mode ?? 'all';
  if (mode === 'server' && [options.url, options.example, options.fixture].filter(Boolean).length !== 1) {
    usage('server needs exactly one of --url, --example, --fixture');
  }
  if (mode === 'client' && !options.command) usage('client needs --command');
  if (options.example && !(options.example in EXAMPLES)) usage(`unknown example ${options.example}`);
  if (options.fixture && options.fixture !== 'broken') usage(`unknown fixture ${options.fixture}`);
  return {
    ...options,
    mode,
    out: path.resolve(options.out as string),
    python: path.resolve(options.python ?? path.join(ROOT, '.venv', 'bin', 'python'))
  } as Options;
}

// ------------------------------------------------------------------------------------------ child processes

const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await done;
  clearTimeout(timer);
}

async function stopAll(): Promise<void> {
  await Promise.all([...children].map(stopChild));
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void stopAll().then(() => process.exit(130));
  });
}

/**
 * Starts `python -m MODULE ARGS...` so that it is stopped even when this runner is killed outright (SIGKILL, a
 * test timeout): on Linux the server asks for SIGTERM when its parent dies (PR_SET_PDEATHSIG survives exec), and
 * exits at once if the runner is already gone.
 */
const LAUNCHER = [
  'import ctypes, os, sys',
  'try:',
  '    ctypes.CDLL(None, use_errno=True).prctl(1, 15)',
  'except (AttributeError, OSError):',
  '    pass',
  'if os.getppid() != int(sys.argv[1]):',
  '    sys.exit(1)',
  'os.execv(sys.executable, [sys.executable, "-m", *sys.argv[2:]])'
].join('\n');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function tail(file: string, size = 2000): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.slice(-size);
  } catch {
    return '';
  }
}

interface RunningExample {
  name: string;
  url: string;
  log: string;
}

async function startExample(options: Options, name: string, plain: boolean, logDir: string): Promise<RunningExample> {
  const example = EXAMPLES[name];
  const port = await freePort();
  mkdirSync(logDir, { recursive: true });
  const label = `${name}${plain ? '-plain' : ''}-${port}`;
  const log = path.join(logDir, `${label}.log`);
  const fd = openSync(log, 'w');
  const args = ['-c', LAUNCHER, String(process.pid), example.module, '--http', `127.0.0.1:${port}`];
  if (plain) args.push('--plain');
  else args.push('--record-links'); // the scenario checks the links a server sends when it opts in
  const child = track(
    spawn(options.python, args, {
      cwd: ROOT,
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', fd, fd]
    })
  );
  closeSync(fd);
  const failedToStart = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`cannot start ${options.python}: ${error.message}`));
    child.once('exit', (code) => resolve(`exited with code ${code}`));
  });
  const deadline = Date.now() + 30000;
  let failure: string | undefined;
  void failedToStart.then((reason) => {
    failure = reason;
  });
  while (Date.now() < deadline) {
    if (failure !== undefined) throw new Error(`the ${label} server ${failure}: ${tail(log)}`);
    if (await listening(port)) return { name: label, url: `http://127.0.0.1:${port}/mcp`, log };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${label} server did not listen on port ${port} within 30 s: ${tail(log)}`);
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

// ------------------------------------------------------------------------------------ the rendering scenarios

/** A check id's status over several servers: FAILURE anywhere fails it; otherwise a SUCCESS somewhere passes it. */
function mergeChecks(perServer: Record<string, ConformanceCheck[]>): ConformanceCheck[] {
  const ids: string[] = [];
  for (const checks of Object.values(perServer)) for (const c of checks) if (!ids.includes(c.id)) ids.push(c.id);
  return ids.map((id) => {
    const found = Object.entries(perServer).flatMap(([server, checks]) =>
      checks.filter((c) => c.id === id).map((c) => ({ server, check: c }))
    );
    const statuses = found.map((f) => f.check.status);
    const status: CheckStatus = statuses.includes('FAILURE')
      ? 'FAILURE'
      : statuses.includes('SUCCESS')
        ? 'SUCCESS'
        : (statuses[0] ?? 'SKIPPED');
    const first = found[0].check;
    const merged: ConformanceCheck = {
      id,
      name: first.name,
      description: first.description,
      status,
      timestamp: new Date().toISOString(),
      specReferences: first.specReferences,
      details: {
        merge: 'FAILURE on any server fails the check; otherwise SUCCESS on any server passes it',
        perServer: Object.fromEntries(
          found.map((f) => [
            f.server,
            { status: f.check.status, errorMessage: f.check.errorMessage, details: f.check.details }
          ])
        )
      }
    };
    const failures = found.filter((f) => f.check.status === 'FAILURE');
    if (failures.length > 0)
      merged.errorMessage = failures.map((f) => `${f.server}: ${f.check.errorMessage}`).join(' | ');
    return merged;
  });
}

async function runServerScenario(url: string, options: RenderingServerOptions): Promise<ConformanceCheck[]> {
  return new RenderingServerScenario(options).run(url);
}

interface ClientRun {
  checks: ConformanceCheck[];
  exitCode: number | null;
  timedOut: boolean;
  dir: string;
}

/** What the suite's client runner does: start(), run the client with the URL last, getChecks(), stop(). */
async function runClientScenario(scenario: Scenario, command: string[], out: string): Promise<ClientRun> {
  const dir = path.join(out, `client-${scenario.name}-${stamp()}`);
  mkdirSync(dir, { recursive: true });
  const urls = await scenario.start();
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario.name };
    if (urls.context) env.MCP_CONFORMANCE_CONTEXT = JSON.stringify({ name: scenario.name, ...urls.context });
    const child = track(spawn(command[0], [...command.slice(1), urls.serverUrl], { cwd: ROOT, env, stdio: 'pipe' }));
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, CLIENT_TIMEOUT_MS);
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('error', (error) => {
        stderr += `\nProcess error: ${error.message}`;
        resolve(-1);
      });
      child.once('close', (code) => resolve(code));
    });
    clearTimeout(timer);
    const checks = scenario.getChecks();
    writeJson(path.join(dir, 'checks.json'), checks);
    writeFileSync(path.join(dir, 'stdout.txt'), stdout);
    writeFileSync(path.join(dir, 'stderr.txt'), stderr);
    return { checks, exitCode, timedOut, dir };
  } finally {
    await scenario.stop();
  }
}

interface RenderingOutcome {
  server: ConformanceCheck[];
  client: ConformanceCheck[];
  clientRun: ClientRun;
  dirs: string[];
}

async function runRendering(options: Options, servers: RunningExample[]): Promise<RenderingOutcome> {
  const perServer: Record<string, ConformanceCheck[]> = {};
  const serverDir = path.join(options.out, `server-rendering-server-${stamp()}`);
  await Promise.all(
    servers.map(async (s) => {
      const name = s.name.split('-')[0];
      perServer[name] = await runServerScenario(s.url, EXAMPLES[name].options);
    })
  );
  const ordered = Object.fromEntries(
    Object.keys(EXAMPLES)
      .filter((k) => k in perServer)
      .map((k) => [k, perServer[k]])
  );
  const server = mergeChecks(ordered);
  writeJson(path.join(serverDir, 'checks.json'), server);
  for (const [name, checks] of Object.entries(ordered)) writeJson(path.join(serverDir, `checks.${name}.json`), checks);
  const clientRun = await runClientScenario(
    new RenderingClientScenario(),
    [options.python, path.join(HERE, 'reference_client.py')],
    options.out
  );
  return { server, client: clientRun.checks, clientRun, dirs: [serverDir, clientRun.dir] };
}

// --------------------------------------------------------------------------------------- the published suite

interface SuiteRun {
  label: string;
  exitCode: number | null;
  dir: string;
  scenarios: Record<string, CheckStatus[]>;
}

function suiteResults(dir: string): Record<string, CheckStatus[]> {
  const scenarios: Record<string, CheckStatus[]> = {};
  if (!existsSync(dir)) return scenarios;
  for (const entry of readdirSync(dir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry);
    const file = path.join(dir, entry, 'checks.json');
    if (!match || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8')) as ConformanceCheck[];
    scenarios[match[1]] = [...new Set(checks.map((c) => c.status))].sort() as CheckStatus[];
  }
  return scenarios;
}

async function runSuiteOnce(label: string, url: string, out: string): Promise<SuiteRun> {
  const dir = path.join(out, `suite-${label}`);
  mkdirSync(dir, { recursive: true });
  const log = path.join(out, 'logs', `suite-${label}.log`);
  mkdirSync(path.dirname(log), { recursive: true });
  const fd = openSync(log, 'w');
  const child = track(
    spawn(process.execPath, [SUITE_JS, 'server', '--url', url, '-o', dir], { cwd: HERE, stdio: ['ignore', fd, fd] })
  );
  closeSync(fd);
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(-1));
    child.once('close', (code) => resolve(code));
  });
  return { label, exitCode, dir, scenarios: suiteResults(dir) };
}

interface SuiteOutcome {
  identical: boolean;
  file: string;
  scenarioCount: number;
  differing: string[];
}

async function runSuite(options: Options, withExtension: RunningExample, plain: RunningExample): Promise<SuiteOutcome> {
  if (!existsSync(SUITE_JS)) throw new Error(`${SUITE_JS} is missing: run npm ci in conformance/`);
  const [a, b] = await Promise.all([
    runSuiteOnce('extension', withExtension.url, options.out),
    runSuiteOnce('plain', plain.url, options.out)
  ]);
  const names = [...new Set([...Object.keys(a.scenarios), ...Object.keys(b.scenarios)])].sort();
  const scenarios = names.map((scenario) => {
    const extension = a.scenarios[scenario] ?? null;
    const without = b.scenarios[scenario] ?? null;
    return { scenario, extension, plain: without, identical: extension !== null && deepEqualLists(extension, without) };
  });
  const differing = scenarios.filter((s) => !s.identical).map((s) => s.scenario);
  const identical = names.length > 0 && differing.length === 0;
  const file = path.join(options.out, 'suite-comparison.json');
  writeJson(file, {
    suite: `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
    server: EXAMPLES.screening.module,
    runs: {
      extension: { command: `${EXAMPLES.screening.module} --http`, exitCode: a.exitCode, results: a.dir },
      plain: { command: `${EXAMPLES.screening.module} --http --plain`, exitCode: b.exitCode, results: b.dir }
    },
    scenarioCount: names.length,
    scenarios,
    identical
  });
  return { identical, file, scenarioCount: names.length, differing };
}

function deepEqualLists(a: string[] | null, b: string[] | null): boolean {
  return a !== null && b !== null && a.length === b.length && a.every((v, i) => v === b[i]);
}

// -------------------------------------------------------------------------------------------------- verdict

interface Traceability {
  declared: string[];
}

function declaredIds(): Traceability {
  const parsed = parseYaml(readFileSync(YAML_PATH, 'utf8')) as { requirements?: { check?: string }[] };
  const declared = (parsed.requirements ?? []).flatMap((r) => (typeof r.check === 'string' ? [r.check] : []));
  return { declared };
}

function expectedFailures(file: string | undefined): Set<string> {
  if (!file) return new Set();
  const parsed = parseYaml(readFileSync(file, 'utf8')) as { server?: unknown; client?: unknown } | null;
  const lists = [parsed?.server, parsed?.client].filter(Array.isArray) as unknown[][];
  return new Set(lists.flat().map(String));
}

function printChecks(title: string, checks: ConformanceCheck[], expected: Set<string>): void {
  const counts: Record<string, number> = {};
  for (const c of checks) counts[c.status] = (counts[c.status] ?? 0) + 1;
  console.log(
    `${title}: ${Object.entries(counts)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}`
  );
  for (const c of checks) {
    const note = c.status === 'FAILURE' ? `  ${(c.errorMessage ?? '').slice(0, 220)}` : '';
    const mark = c.status === 'FAILURE' && expected.has(c.id) ? ' (expected)' : '';
    console.log(`  ${c.status.padEnd(8)} ${c.id}${mark}${note}`);
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  mkdirSync(options.out, { recursive: true });
  const logs = path.join(options.out, 'logs');
  const started = Date.now();
  const timings: Record<string, number> = {};
  const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      timings[label] = (Date.now() - t0) / 1000;
    }
  };

  if (options.mode === 'server') {
    let url = options.url;
    let stop = async (): Promise<void> => {};
    let scenarioOptions: RenderingServerOptions = {};
    if (options.example) {
      url = (await startExample(options, options.example, options.plain, logs)).url;
      scenarioOptions = EXAMPLES[options.example].options;
    } else if (options.fixture) {
      const fixture = await startBrokenServer();
      url = fixture.url;
      stop = () => fixture.close();
    }
    try {
      const checks = await runServerScenario(url as string, scenarioOptions);
      const dir = path.join(options.out, `server-rendering-server-${stamp()}`);
      writeJson(path.join(dir, 'checks.json'), checks);
      printChecks(`rendering-server against ${url}`, checks, new Set());
      console.log(`results: ${dir}`);
      return checks.every((c) => c.status === 'SUCCESS') ? 0 : 1;
    } finally {
      await stop();
    }
  }

  if (options.mode === 'client') {
    const command = (options.command as string).split(' ').filter(Boolean);
    const run = await runClientScenario(new RenderingClientScenario(), command, options.out);
    printChecks(`rendering-client with ${options.command}`, run.checks, new Set());
    console.log(`client exit code ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}; results: ${run.dir}`);
    return run.checks.every((c) => c.status === 'SUCCESS') ? 0 : 1;
  }

  const wantRendering = options.mode === 'rendering' || options.mode === 'all';
  const wantSuite = options.mode === 'suite' || options.mode === 'all';
  const expected = expectedFailures(options.expectedFailures);
  const problems: string[] = [];

  const servers = await time('start servers', () =>
    Promise.all([
      wantRendering ? startExample(options, 'financial', false, logs) : undefined,
      wantRendering ? startExample(options, 'screening', false, logs) : undefined,
      wantSuite ? startExample(options, 'screening', false, logs) : undefined,
      wantSuite ? startExample(options, 'screening', true, logs) : undefined
    ])
  );
  const [financial, screening, suiteExtension, suitePlain] = servers;
  const [rendering, suite] = await Promise.all([
    wantRendering
      ? time('rendering scenarios', () => runRendering(options, [financial, screening] as RunningExample[]))
      : undefined,
    wantSuite
      ? time('published suite x2', () =>
          runSuite(options, suiteExtension as RunningExample, suitePlain as RunningExample)
        )
      : undefined
  ]);
  await time('stop servers', stopAll);

  if (rendering) {
    const { declared } = declaredIds();
    printChecks('rendering-server (financial + screening, merged)', rendering.server, expected);
    printChecks('rendering-client (conformance/reference_client.py)', rendering.client, expected);
    const run = rendering.clientRun;
    if (run.timedOut) problems.push(`the reference client timed out after ${CLIENT_TIMEOUT_MS} ms`);
    else if (run.exitCode !== 0)
      problems.push(`the reference client exited with code ${run.exitCode} (see ${run.dir})`);
    const emitted = new Map([...rendering.server, ...rendering.client].map((c) => [c.id, c.status]));
    const missing = declared.filter((id) => !emitted.has(id));
    const undeclared = [...emitted.keys()].filter((id) => id.startsWith('sep-0000-') && !declared.includes(id));
    const failing = declared.filter((id) => emitted.has(id) && emitted.get(id) !== 'SUCCESS');
    const unexpected = failing.filter((id) => !(expected.has(id) && emitted.get(id) === 'FAILURE'));
    const stale = [...expected].filter((id) => emitted.get(id) !== 'FAILURE');
    if (missing.length) problems.push(`check ids of the yaml not emitted: ${missing.join(', ')}`);
    if (undeclared.length) problems.push(`emitted check ids the yaml does not declare: ${undeclared.join(', ')}`);
    if (unexpected.length)
      problems.push(`not SUCCESS: ${unexpected.map((id) => `${id} (${emitted.get(id)})`).join(', ')}`);
    if (stale.length) problems.push(`listed as expected failures but not failing (remove them): ${stale.join(', ')}`);
    console.log(`results: ${rendering.dirs.join(', ')}`);
  }
  if (suite) {
    console.log(
      `published suite ${SUITE_VERSION} against screening, with and without the extension: ${suite.scenarioCount} scenarios, ` +
        `identical: ${suite.identical ? 'yes' : `no (${suite.differing.join(', ') || 'no results'})`}`
    );
    console.log(`results: ${suite.file}`);
    if (!suite.identical)
      problems.push(`the published suite's results differ with the extension: ${suite.differing.join(', ')}`);
  }
  timings.total = (Date.now() - started) / 1000;
  console.log(
    `timings (s): ${Object.entries(timings)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}`
  );
  writeJson(path.join(options.out, 'summary.json'), { mode: options.mode, problems, timings });
  if (problems.length > 0) {
    console.log(`FAILED:\n  - ${problems.join('\n  - ')}`);
    return 1;
  }
  console.log('OK');
  return 0;
}

let status = 1;
try {
  status = await main();
} catch (error) {
  console.error(`run.ts: ${error instanceof Error ? error.message : String(error)}`);
  status = 1;
} finally {
  await stopAll();
}
process.exit(status);
