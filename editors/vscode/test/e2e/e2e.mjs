// Drives a VS Code (code-server) in headless Chromium through the hookc
// extension's features, on the workspace `run.sh` prepares: `rules.hooks`
// holds `when tool_name == "Bash"` on line 4, which hookc reports as
// `unknown-name` (help: write `payload.tool_name`).
//
// Environment (set by run.sh):
//   E2E_URL       the code-server page, with ?folder=<workspace>
//   E2E_WORKSPACE that workspace (its .vscode/settings.json is rewritten)
//   E2E_OUT       where screenshots go
//   E2E_TOOLS     the npm prefix that holds playwright-core
//   CHROMIUM      the Chromium binary
//
// Each check prints `ok <name>` or `FAIL <name>: <why>`; the last line is
// `N passed, N failed`, and the exit code is 1 when a check failed.

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const require = createRequire(path.join(process.env.E2E_TOOLS, "package.json"));
const { chromium } = require("playwright-core");

const url = process.env.E2E_URL;
const out = process.env.E2E_OUT;
const timeout = Number(process.env.E2E_TIMEOUT_MS ?? 30000);

let passed = 0;
let failed = 0;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
page.setDefaultTimeout(timeout);

async function shot(name) {
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`   screenshot ${file}`);
}

/** Runs one check; a failure is counted, screenshotted, and the run goes on. */
async function check(name, body) {
  try {
    const detail = await body();
    passed++;
    console.log(`ok ${name}${detail ? `: ${detail}` : ""}`);
  } catch (error) {
    failed++;
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    console.log(`FAIL ${name}: ${message}`);
    await shot(`fail-${name}`).catch(() => {});
    await page.keyboard.press("Escape").catch(() => {});
  }
}

function expect(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

/** The editor's text, line by line, as rendered (spaces normalized). */
async function editorLines() {
  return page.$$eval(".monaco-editor .view-lines .view-line", (lines) =>
    lines
      .map((line) => [parseFloat(line.style.top), line.textContent.replace(/\u00a0/g, " ")])
      .sort((a, b) => a[0] - b[0])
      .map(([, text]) => text),
  );
}

/** Puts the cursor at `line:column` with Go to Line. */
async function goTo(position) {
  await page.keyboard.press("Control+g");
  await page.waitForSelector(".quick-input-widget input", { state: "visible" });
  await page.keyboard.type(position);
  await page.keyboard.press("Enter");
  await page.waitForSelector(".quick-input-widget", { state: "hidden" });
}

/** Runs a command by its title through the command palette. */
async function runCommand(title) {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { state: "visible" });
  await page.keyboard.type(title);
  await page.waitForFunction(
    (t) =>
      [...document.querySelectorAll(".quick-input-list .monaco-list-row")].some((row) =>
        row.textContent.includes(t),
      ),
    title,
  );
  await page.keyboard.press("Enter");
}

/** The error squiggles in the editor. */
const squiggles = () => page.locator(".monaco-editor .squiggly-error");

await check("workbench", async () => {
  await page.goto(url);
  await page.waitForSelector(".monaco-workbench");
  const file = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "rules.hooks" });
  await file.waitFor();
  await file.click();
  await page.waitForSelector(".monaco-editor .view-lines .view-line");
  await page.locator(".monaco-editor .view-lines").click();
  return "rules.hooks open";
});

await check("language", async () => {
  const mode = page.locator("#status\\.editor\\.mode");
  await mode.waitFor();
  await page.waitForFunction(
    () => document.querySelector("#status\\.editor\\.mode")?.textContent.includes("hookc rules"),
  );
  return `status bar: ${(await mode.textContent()).trim()}`;
});

await check("highlighting", async () => {
  // The grammar colours tokens: `hook`, the point and the string differ
  // from plain text (mtk1) and from each other. Tokenizing is asynchronous:
  // wait until the line is split into tokens.
  const tokensOf = () =>
    page.$$eval(".monaco-editor .view-line span span", (spans) =>
      Object.fromEntries(spans.map((s) => [s.textContent.replace(/\u00a0/g, " "), s.className])),
    );
  await page
    .waitForFunction(() =>
      [...document.querySelectorAll(".monaco-editor .view-line span span")].some(
        (s) => s.textContent === "PreToolUse" && !/\bmtk1\b/.test(s.className),
      ),
    )
    .catch(() => {});
  const tokens = await tokensOf();
  for (const word of ["hook", "PreToolUse", '"Bash"']) {
    expect(tokens[word] && !/\bmtk1\b/.test(tokens[word]), `${word} is not coloured: ${tokens[word]}`);
  }
  expect(tokens.hook !== tokens.PreToolUse, "`hook` and `PreToolUse` share a colour");
  // And the scopes come from the hookc grammar.
  await goTo("3:12");
  await runCommand("Developer: Inspect Editor Tokens and Scopes");
  const widget = page.locator(".token-inspect-widget");
  await widget.waitFor();
  const text = await widget.innerText();
  expect(text.includes("source.hooks"), `no source.hooks scope in: ${text}`);
  expect(
    text.includes("entity.name.type.hook-point.hooks"),
    `PreToolUse is not a hook point: ${text}`,
  );
  await shot("01-highlighting");
  await page.keyboard.press("Escape");
  await widget.waitFor({ state: "hidden" }).catch(() => {});
  return "PreToolUse is entity.name.type.hook-point.hooks in source.hooks";
});

await check("diagnostics", async () => {
  await squiggles().first().waitFor({ state: "attached" });
  await runCommand("View: Focus Problems");
  const row = page.locator(".markers-panel .monaco-list-row", { hasText: "tool_name" }).first();
  await row.waitFor();
  const text = (await page.locator(".markers-panel").innerText()).replace(/\s+/g, " ");
  expect(text.includes("unknown name `tool_name`"), `problems: ${text}`);
  expect(text.includes("hookc"), `no hookc source: ${text}`);
  expect(text.includes("unknown-name"), `no unknown-name code: ${text}`);
  expect(text.includes("[Ln 4, Col 8]"), `not at line 4, column 8: ${text}`);
  await shot("02-diagnostics");
  return "unknown name `tool_name` (hookc, unknown-name) at Ln 4, Col 8";
});

await check("hover", async () => {
  await page.locator(".monaco-editor .view-lines").click();
  await goTo("1:1");
  const point = page.locator(".monaco-editor .view-line span span", { hasText: /^PreToolUse$/ }).first();
  await point.hover();
  const hover = page.locator(".monaco-hover .hover-contents", { hasText: "claude-code" }).first();
  await hover.waitFor();
  const text = (await hover.innerText()).replace(/\s+/g, " ");
  expect(text.includes("PreToolUse: a pre point of the claude-code schema"), `hover: ${text}`);
  expect(text.includes("payload.tool_input.command"), `no payload fields: ${text}`);
  await shot("03-hover");
  await page.mouse.move(5, 5);
  return text.slice(0, 60);
});

await check("quick-fix", async () => {
  await page.locator(".monaco-editor .view-lines").click();
  await goTo("4:8");
  await page.keyboard.press("Control+.");
  const fix = page.locator(".action-widget .monaco-list-row.focused", { hasText: "payload.tool_name" }).first();
  await fix.waitFor();
  const title = (await fix.innerText()).trim();
  expect(title === "Replace with `payload.tool_name`", `the fix is: ${title}`);
  await shot("04-quick-fix");
  // The fix is the focused (first) entry: Enter applies it.
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    () => document.querySelectorAll(".monaco-editor .squiggly-error").length === 0,
  );
  const lines = await editorLines();
  expect(lines[3].trim() === 'when payload.tool_name == "Bash"', `line 4 is: ${lines[3]}`);
  await shot("05-fixed");
  return `applied "${title}": no error left`;
});

await check("formatting", async () => {
  // hookc fmt indents by four spaces; the file is indented by two.
  await runCommand("Format Document");
  await page.waitForFunction(() =>
    [...document.querySelectorAll(".monaco-editor .view-lines .view-line")].some((line) =>
      line.textContent.replace(/\u00a0/g, " ").startsWith("    when payload.tool_name"),
    ),
  );
  const lines = await editorLines();
  expect(lines[4] === '    deny "x"', `line 5 is: ${lines[4]}`);
  await shot("06-formatted");
  return "re-indented by hookc fmt's layout";
});

await check("completion", async () => {
  await goTo("4:100");
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("when payload.tool_input.");
  const suggest = page.locator(".editor-widget.suggest-widget.visible");
  await suggest.waitFor();
  await page.locator(".suggest-widget .monaco-list-row").first().waitFor();
  const labels = await page.$$eval(".suggest-widget .monaco-list-row .label-name", (els) =>
    els.map((e) => e.textContent.trim()),
  );
  expect(!labels.includes("tool_name"), `tool_name offered below tool_input: ${labels}`);
  await page.keyboard.type("comm");
  const command = page.locator(".suggest-widget .monaco-list-row.focused", { hasText: "command" });
  await command.waitFor();
  await shot("07-completion");
  await page.keyboard.press("Enter");
  await suggest.waitFor({ state: "hidden" });
  const lines = await editorLines();
  expect(lines[4].trim() === "when payload.tool_input.command", `line 5 is: ${lines[4]}`);
  return `offered ${labels.slice(0, 6).join(", ")}…; accepted command`;
});

/**
 * Hovers `PreToolUse` until the server's hover shows: a server that is
 * still starting has no hover provider yet, and the editor asks only when
 * the mouse moves onto the word.
 */
async function hoverPoint() {
  const point = page.locator(".monaco-editor .view-line span span", { hasText: /^PreToolUse$/ }).first();
  const hover = page.locator(".monaco-hover .hover-contents", { hasText: "point of the claude-code schema" }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    await page.mouse.move(5, 5);
    await page.waitForTimeout(300);
    await point.hover();
    try {
      await hover.waitFor({ timeout: 3000 });
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        throw error;
      }
    }
  }
  await page.mouse.move(5, 5);
}

await check("restart", async () => {
  await page.keyboard.press("Escape");
  await runCommand("hookc: Restart the language server");
  await hoverPoint();
  return "the restarted server answers a hover";
});

await check("missing-binary", async () => {
  // A `hookc.path` that names no program: the extension says so, and it
  // recovers when the setting is fixed.
  const settings = path.join(process.env.E2E_WORKSPACE, ".vscode", "settings.json");
  const good = fs.readFileSync(settings, "utf8");
  const bad = JSON.stringify({ ...JSON.parse(good), "hookc.path": "/nonexistent/hookc" }, null, 2);
  fs.writeFileSync(settings, bad);
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "could not start" });
  try {
    await toast.first().waitFor();
    const text = (await toast.first().innerText()).replace(/\s+/g, " ");
    expect(text.includes("/nonexistent/hookc lsp"), `the message: ${text}`);
    expect(text.includes("Open Settings"), `no Open Settings button: ${text}`);
    await shot("08-missing-binary");
  } finally {
    fs.writeFileSync(settings, good);
  }
  await page.keyboard.press("Escape");
  await hoverPoint();
  return "error shown; hover works again once the setting is fixed";
});

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
