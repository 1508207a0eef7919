// A scripted fake pull server with a save-triggered checker, used ONLY to inject one fault that
// rust-analyzer produces under load but not on demand: the checker run a didSave asks for never
// starts (measured on serde_json after a 7-file rename). Behaviour: pull diagnostics are always
// empty; the didSaves numbered in FAKE_DROP_SAVE (comma-separated, default 1) start nothing; every other didSave runs
// a "cargo check" ($/progress begin … end) that publishes one error for the saved file, whose
// message names the save that started it ("found by check 3").
import { appendFileSync } from "node:fs";
import rpc from "vscode-jsonrpc/node";

const recordFile = process.env.FAKE_LSP_RECORD;
const record = (event) => {
  if (recordFile) appendFileSync(recordFile, `${JSON.stringify(event)}\n`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);

conn.onRequest("initialize", () => ({
  capabilities: {
    textDocumentSync: 1,
    diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false },
  },
}));
conn.onRequest("shutdown", () => null);
conn.onNotification("exit", () => process.exit(0));
conn.onRequest("textDocument/diagnostic", () => ({ kind: "full", items: [] }));

const dropped = (process.env.FAKE_DROP_SAVE ?? "1").split(",").map(Number);
let saves = 0;
conn.onNotification("textDocument/didSave", async (params) => {
  saves += 1;
  record({ event: "didSave", n: saves });
  if (dropped.includes(saves)) return;
  const token = `flycheck/${saves}`;
  await conn.sendNotification("$/progress", { token, value: { kind: "begin", title: "cargo check" } });
  await sleep(50);
  await conn.sendNotification("textDocument/publishDiagnostics", {
    uri: params.textDocument.uri,
    diagnostics: [
      {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
        severity: 1,
        code: "E0433",
        source: "rustc",
        message: `found by check ${saves}`,
      },
    ],
  });
  await conn.sendNotification("$/progress", { token, value: { kind: "end" } });
});

conn.listen();
