// Drives one pinned TypeScript MCP client, unmodified, through its public Client and stdio transport.
// Usage: node ts_client.mjs <package> <spec.json>
//   <package>: an npm alias from interop/package.json (sdk-1-21, sdk-1-22, sdk-1-32, client-2)
//   <spec.json>: {"cwd": ..., "runs": [{"id", "command", "args", "tool", "arguments"}, ...]}
// For each run it starts the server, lists tools, calls the tool, and prints one JSON object with exactly what the
// application received (or the error message) per run.
import { readFileSync } from "node:fs";

const [pkg, specPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));

// SDK 1.x ships deep ESM paths; the 2.x client exposes package exports.
const paths = pkg.startsWith("sdk-")
  ? [`${pkg}/client/index.js`, `${pkg}/client/stdio.js`]
  : [pkg, `${pkg}/stdio`];
const { Client } = await import(paths[0]);
const { StdioClientTransport } = await import(paths[1]);

const errorText = (err) => String(err?.message ?? err);

async function observe(run) {
  const transport = new StdioClientTransport({
    command: run.command,
    args: run.args,
    cwd: spec.cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "mcp-rendering-interop", version: "0.1.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    return { connect: { ok: false, error: errorText(err) } };
  }
  const out = {};
  try {
    out.list = { ok: true, value: await client.listTools() };
  } catch (err) {
    out.list = { ok: false, error: errorText(err) };
  }
  try {
    out.call = { ok: true, value: await client.callTool({ name: run.tool, arguments: run.arguments }) };
  } catch (err) {
    out.call = { ok: false, error: errorText(err) };
  }
  await client.close();
  return out;
}

const observations = {};
for (const run of spec.runs) {
  observations[run.id] = await observe(run);
}
process.stdout.write(JSON.stringify({ observations }) + "\n");
