#!/usr/bin/env bash
# Checks the hookc extension inside a real VS Code: code-server (VS Code in
# the browser, whose extension host runs the extension's Node client on this
# machine, so `hookc lsp` runs over stdio as on the desktop), driven by
# headless Chromium through playwright-core (e2e.mjs).
#
# It packages the extension (.vsix) from a copy of editors/vscode, installs
# it into a code-server with its own data and extension folders, opens a
# workspace whose rules.hooks has a known error, and checks: the language
# mode, the highlighting (the grammar's scopes), the diagnostic, a hover, a
# quick fix and a completion. Screenshots and logs go to $E2E_OUT.
#
# Needs node and npm, Chromium, and for installing code-server from npm:
# node 20, a C/C++ toolchain, python3, pkg-config, libkrb5-dev, and ripgrep
# (used instead of the ripgrep download that code-server's install attempts).
# On Debian:
#   apt-get install -y chromium ripgrep build-essential python3 pkg-config libkrb5-dev
#
# Environment (all optional):
#   HOOKC        the hookc binary (default: target/release/hookc of this
#                repository, built with `cargo build --release` first)
#   CODE_SERVER  a code-server binary (default: `code-server` on PATH, else
#                code-server@$CODE_SERVER_VERSION installed with npm into
#                $E2E_TOOLS)
#   CHROMIUM     the Chromium binary (default: /usr/bin/chromium)
#   E2E_TOOLS    where the npm tools go (default: /tmp/hookc-vscode-e2e-tools,
#                kept between runs)
#   E2E_OUT      screenshots and logs (default: a new /tmp/hookc-vscode-e2e.*)
#
# Exits 0 when every check passed, 1 when one failed, 2 when the setup did.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
extension=$(cd "$here/../.." && pwd)
repo=$(cd "$extension/../.." && pwd)

CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.100.0}
VSCE_VERSION=3.7.1
PLAYWRIGHT_VERSION=1.65.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
E2E_TOOLS=${E2E_TOOLS:-/tmp/hookc-vscode-e2e-tools}
E2E_OUT=${E2E_OUT:-$(mktemp -d /tmp/hookc-vscode-e2e.XXXXXX)}
export CHROMIUM E2E_TOOLS E2E_OUT

say() { printf '== %s\n' "$*"; }
die() { printf 'e2e: %s\n' "$*" >&2; exit 2; }

mkdir -p "$E2E_OUT" "$E2E_TOOLS"
work=$E2E_OUT/work
rm -rf "$work"
mkdir -p "$work"

command -v node >/dev/null || die "node is not installed"
command -v npm >/dev/null || die "npm is not installed"
[ -x "$CHROMIUM" ] || die "no Chromium at $CHROMIUM (apt-get install -y chromium)"

# --- hookc -----------------------------------------------------------------
if [ -z "${HOOKC:-}" ]; then
  say "building hookc (cargo build --release)"
  (cd "$repo" && nice -n 10 cargo build --release --quiet) || die "cargo build failed"
  HOOKC=$repo/target/release/hookc
fi
[ -x "$HOOKC" ] || die "no hookc binary at $HOOKC"
say "hookc: $HOOKC ($("$HOOKC" --version))"

# --- npm tools: vsce, playwright-core ----------------------------------------
if [ ! -x "$E2E_TOOLS/node_modules/.bin/vsce" ] ||
  [ ! -f "$E2E_TOOLS/node_modules/playwright-core/package.json" ]; then
  say "installing @vscode/vsce and playwright-core into $E2E_TOOLS"
  npm install --prefix "$E2E_TOOLS" --no-audit --no-fund --loglevel=error \
    "@vscode/vsce@$VSCE_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" \
    >"$E2E_OUT/npm-tools.log" 2>&1 || die "npm install of the tools failed: $E2E_OUT/npm-tools.log"
fi

# --- code-server -------------------------------------------------------------
install_code_server() {
  # code-server's npm package builds VS Code's native modules when it is
  # installed (root needs unsafe-perm, node-gyp the node headers), and
  # @vscode/ripgrep downloads a ripgrep build unless its cache already holds
  # one: the cache is filled with the machine's own `rg` (its name is the
  # one @vscode/ripgrep 1.15.11, code-server 4.100.0's, looks for on x86-64).
  local rg tmp cache node_major
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$node_major" = 20 ] || [ "$CODE_SERVER_VERSION" != 4.100.0 ] ||
    die "code-server 4.100.0 installs with node 20 only (this is node $node_major): install node 20, or set CODE_SERVER_VERSION to a code-server for this node, or CODE_SERVER to an installed code-server"
  rg=$(command -v rg) || die "ripgrep is needed to install code-server (apt-get install -y ripgrep)"
  tmp=$E2E_TOOLS/tmp
  cache=$tmp/vscode-ripgrep-cache-1.15.11
  mkdir -p "$cache" "$tmp/rg"
  cp "$rg" "$tmp/rg/rg"
  tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$tmp/rg" rg
  local nodedir=()
  if [ -f /usr/include/node/common.gypi ]; then
    nodedir=(env npm_config_nodedir=/usr)
  fi
  say "installing code-server@$CODE_SERVER_VERSION into $E2E_TOOLS/code-server (a few minutes)"
  mkdir -p "$E2E_TOOLS/code-server"
  TMPDIR=$tmp npm_config_unsafe_perm=true npm_config_yes=true "${nodedir[@]}" \
    nice -n 10 npm install --prefix "$E2E_TOOLS/code-server" --no-audit --no-fund \
    --foreground-scripts "code-server@$CODE_SERVER_VERSION" \
    >"$E2E_OUT/npm-code-server.log" 2>&1 ||
    die "npm install of code-server failed: $E2E_OUT/npm-code-server.log"
}

if [ -z "${CODE_SERVER:-}" ]; then
  if command -v code-server >/dev/null; then
    CODE_SERVER=$(command -v code-server)
  else
    CODE_SERVER=$E2E_TOOLS/code-server/node_modules/.bin/code-server
    [ -x "$CODE_SERVER" ] || install_code_server
  fi
fi
[ -x "$CODE_SERVER" ] || die "no code-server at $CODE_SERVER"
say "code-server: $("$CODE_SERVER" --version 2>/dev/null | tail -n 1)"

# --- the .vsix, built from a copy of editors/vscode ----------------------------
say "packaging the extension"
mkdir -p "$work/extension"
tar -C "$extension" --exclude=./node_modules --exclude=./out --exclude='*.vsix' -cf - . |
  tar -C "$work/extension" -xf -
(
  cd "$work/extension"
  npm ci --no-audit --no-fund --loglevel=error &&
    "$E2E_TOOLS/node_modules/.bin/vsce" package --skip-license --allow-missing-repository \
      -o "$work/hookc.vsix"
) >"$E2E_OUT/package.log" 2>&1 || die "packaging failed: $E2E_OUT/package.log"

# --- the workspace and the editor's settings ------------------------------------
workspace=$work/workspace
mkdir -p "$workspace/.vscode" "$work/data/User" "$work/extensions"
cat >"$workspace/rules.hooks" <<'EOF'
schema claude-code

hook a on PreToolUse {
  when tool_name == "Bash"
  deny "x"
}
EOF
cat >"$workspace/.vscode/settings.json" <<EOF
{
  "hookc.path": "$HOOKC",
  "hookc.trace.server": "messages"
}
EOF
cat >"$work/data/User/settings.json" <<'EOF'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "editor.hover.delay": 300
}
EOF
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
cat >"$work/config.yaml" <<EOF
bind-addr: 127.0.0.1:$port
auth: none
cert: false
EOF
code_server=("$CODE_SERVER" --config "$work/config.yaml" --user-data-dir "$work/data"
  --extensions-dir "$work/extensions")

say "installing the .vsix"
"${code_server[@]}" --install-extension "$work/hookc.vsix" >"$E2E_OUT/install-extension.log" 2>&1 ||
  die "code-server --install-extension failed: $E2E_OUT/install-extension.log"
compgen -G "$work/extensions/hookc.hookc-hooks-*" >/dev/null ||
  die "the extension is not in $work/extensions: $E2E_OUT/install-extension.log"

# --- code-server, stopped on exit ---------------------------------------------
say "starting code-server on 127.0.0.1:$port"
setsid "${code_server[@]}" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override "$workspace" \
  >"$E2E_OUT/code-server.log" 2>&1 &
server=$!
# shellcheck disable=SC2317 # called by the trap
stop_server() { kill -- "-$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap stop_server EXIT

for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
    break
  fi
  kill -0 "$server" 2>/dev/null || die "code-server exited: $E2E_OUT/code-server.log"
  sleep 1
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || die "code-server did not answer: $E2E_OUT/code-server.log"

# --- the scenario ---------------------------------------------------------------
say "running the scenario (screenshots in $E2E_OUT)"
status=0
E2E_WORKSPACE=$workspace E2E_URL="http://127.0.0.1:$port/?folder=$workspace" node "$here/e2e.mjs" || status=$?

# The extension's output channel (the client's log and the LSP trace) and the
# extension host's log, for reading after the run.
find "$work/data/logs" -name '*-hookc.log' -exec cat {} + >"$E2E_OUT/hookc-output.log" 2>/dev/null || true
find "$work/data/logs" -name 'remoteexthost.log' -exec cat {} + >"$E2E_OUT/exthost.log" 2>/dev/null || true
grep -h "hookc.hookc-hooks" "$E2E_OUT/exthost.log" | sed 's/^/   /' || true
if [ "$status" -ne 0 ]; then
  echo "e2e: a check failed; logs in $E2E_OUT (code-server.log, exthost.log, hookc-output.log)" >&2
  [ -f "$E2E_OUT/hookc-output.log" ] && tail -n 40 "$E2E_OUT/hookc-output.log" >&2
fi
exit "$status"
