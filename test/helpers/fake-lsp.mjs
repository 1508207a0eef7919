// A scripted fake language server, used ONLY to inject faults that real servers will not produce
// on demand. Behaviour: first argument (or FAKE_LSP_MODE):
//   normal            answers initialize/shutdown, echoes `test/echo`
//   crash-on-request  exits with code 3 on the first request after initialize
//   hang              never answers requests after initialize (records cancellations)
//   garbage           writes non-LSP bytes to stdout at start
//   slow-start        answers initialize after FAKE_LSP_DELAY ms (default 1500)
//   grandchild        spawns a child that ignores SIGTERM, records its pid, otherwise normal
//   progress          on the first didOpen reports a $/progress lasting FAKE_LSP_DELAY ms
// FAKE_LSP_RECORD: a file that receives one JSON line per notable event.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import rpc from "vscode-jsonrpc/node";

const mode = process.argv[2] ?? process.env.FAKE_LSP_MODE ?? "normal";
const delay = Number(process.env.FAKE_LSP_DELAY ?? 1500);
const recordFile = process.env.FAKE_LSP_RECORD;
const record = (event) => {
  if (recordFile) appendFileSync(recordFile, `${JSON.stringify(event)}\n`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (mode === "garbage") {
  process.stdout.write("Hello from a server that prints banners\r\n\r\n{not json}\n");
}

if (mode === "grandchild") {
  const child = spawn(
    process.execPath,
    ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"],
    {
      stdio: "ignore",
    },
  );
  record({ event: "grandchild", pid: child.pid });
}

const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);

conn.onRequest("initialize", async () => {
  if (mode === "slow-start") await sleep(delay);
  return { capabilities: { textDocumentSync: 1, referencesProvider: true } };
});
conn.onRequest("shutdown", () => null);
conn.onNotification("exit", () => process.exit(0));

let opened = false;
conn.onNotification("textDocument/didOpen", async (params) => {
  record({ event: "didOpen", uri: params.textDocument.uri });
  if (mode !== "progress" || opened) return;
  opened = true;
  await conn.sendRequest("window/workDoneProgress/create", { token: "load" });
  await conn.sendNotification("$/progress", { token: "load", value: { kind: "begin", title: "Loading" } });
  await sleep(delay);
  record({ event: "progress-end" });
  await conn.sendNotification("$/progress", { token: "load", value: { kind: "end" } });
});

conn.onRequest((method, params, token) => {
  if (mode === "crash-on-request") {
    record({ event: "crashing", method });
    setTimeout(() => process.exit(3), 10);
    return new Promise(() => {});
  }
  if (mode === "hang") {
    token.onCancellationRequested(() => record({ event: "cancelled", method }));
    return new Promise(() => {});
  }
  record({ event: "request", method });
  if (method === "test/echo") return params;
  return new rpc.ResponseError(rpc.ErrorCodes.MethodNotFound, `fake: no ${method}`);
});

conn.listen();
