// A raw HTTP request to scalpel's /mcp endpoint, below the SDK's client: for what the SDK would not
// send (a wrong token, a foreign Host) and for reading a refusal's status and body as they are.
import { request } from "node:http";

export interface RawAnswer {
  status: number;
  sessionId: string | undefined;
  body: string;
}

/** A raw request to /mcp: an initialize for POST, nothing for DELETE. */
export function rawRequest(
  port: number,
  method: "POST" | "DELETE",
  headers: Record<string, string>,
): Promise<RawAnswer> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method,
        // A fresh connection each time: a kept-alive socket the server closes (after its 5 s idle)
        // just as a later request reuses it fails that request with ECONNRESET, a race of the
        // test's HTTP client, not of scalpel (the likely cause of one CI failure of the 30-session case).
        agent: false,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Host: `127.0.0.1:${port}`,
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => {
          const id = res.headers["mcp-session-id"];
          resolve({
            status: res.statusCode ?? 0,
            sessionId: typeof id === "string" ? id : undefined,
            body: text,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? body : undefined);
  });
}
