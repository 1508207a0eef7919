/**
 * Variables that change what a language's tools answer but have none of the toolchain shapes the
 * daemon's environment key looks for (src/daemon/env-key.ts: `…PATH`, `…HOME`, `…FLAGS`, …): the
 * build's target, the module mode, a workspace file, the compiler itself. Two hosts that set one of
 * them differently must not share a daemon, whose servers would answer for the first host's
 * setting. Kept here, beside the adapters that know their toolchains, and small: the relay that
 * computes the key loads this file and nothing else of language-servers/.
 */
export const toolchainVariables: Readonly<Record<string, readonly string[]>> = {
  // `go env` settings that decide which files build and how modules resolve (GOFLAGS, GOPATH,
  // GOROOT, GOTOOLCHAIN have a toolchain shape already).
  go: [
    "GOOS",
    "GOARCH",
    "GOWORK",
    "GO111MODULE",
    "CGO_ENABLED",
    "GOEXPERIMENT",
    "GOPROXY",
    "GONOSUMDB",
    "GOPRIVATE",
  ],
  // cargo's target and the compiler rust-analyzer runs (RUSTFLAGS, CARGO_HOME, RUSTUP_TOOLCHAIN
  // have a shape already).
  rust: ["CARGO_BUILD_TARGET", "CARGO_TARGET_DIR", "RUSTC", "RUSTC_WRAPPER"],
};

/** Every such variable, whatever its language. */
export const allToolchainVariables: ReadonlySet<string> = new Set(Object.values(toolchainVariables).flat());
