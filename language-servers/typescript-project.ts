/**
 * Which tsconfig answers for a file under typescript-language-server 5.3.0 + tsserver: the
 * TypeScript adapter's `project.ask`.
 */
import type { AskProject } from "../src/languages/adapter.js";

/** What an answer for a file in no tsconfig says; both TypeScript backends use it. */
export const inferredNote =
  "outside every tsconfig: checked as an inferred project with default options — errors such as implicit any may be noise";

interface ProjectInfoResponse {
  body?: { configFileName?: string; fileNames?: string[] };
}

/**
 * tsserver's own `projectInfo`, through tsls 5.3.0's `typescript.tsserverRequest` command, given
 * the file's path: tsls maps an open document's URI to its path but passes anything else on as is,
 * so a URI works only while the file is open, a path for any file of a loaded project. Measured: a
 * file of a tsconfig answers `configFileName: <abs>/tsconfig.json`; a file outside every tsconfig
 * answers `/dev/null/inferredProject1*` (an inferred project with default options); with
 * `needFileNameList` the body lists every file of the project, lib .d.ts files included.
 */
export const askTsserverProject: AskProject = async (server, file, opts) => {
  // tsserver lists the files itself: nothing is read here, so the root is not needed.
  const { listFiles, root: _root, ...request } = opts;
  const res = await server.executeCommand<ProjectInfoResponse | null>(
    "typescript.tsserverRequest",
    ["projectInfo", { file: file.abs, needFileNameList: listFiles }],
    request,
  );
  const name = res?.body?.configFileName;
  const config = name && !name.startsWith("/dev/null/") ? name : null;
  const files = listFiles && res?.body?.fileNames ? { files: res.body.fileNames } : {};
  return config ? { config, ...files } : { config, ...files, note: inferredNote };
};
