// The hookc extension: starts `hookc lsp` over stdio for `.hooks` files.
//
// Highlighting and editing support (comments, brackets, indentation) come
// from the grammar and language configuration the package contributes; this
// file only runs the language server: its diagnostics, hovers, completions,
// formatting and whatever else `hookc lsp` offers.

import * as vscode from "vscode";
import {
  Executable,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("hookc");
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand("hookc.restartServer", () => restart()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration("hookc.path") ||
        event.affectsConfiguration("hookc.server.enable")
      ) {
        void restart();
      }
    }),
  );

  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

/** The `hookc` program to run: the `hookc.path` setting, `~` expanded. */
function hookcPath(): string {
  const configured = vscode.workspace.getConfiguration("hookc").get<string>("path", "hookc").trim();
  if (configured === "") {
    return "hookc";
  }
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (home && (configured === "~" || configured.startsWith("~/"))) {
    return home + configured.slice(1);
  }
  return configured;
}

async function start(): Promise<void> {
  if (!vscode.workspace.getConfiguration("hookc").get<boolean>("server.enable", true)) {
    return;
  }
  const command = hookcPath();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const executable: Executable = {
    command,
    args: ["lsp"],
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder } : undefined,
  };
  const serverOptions: ServerOptions = { run: executable, debug: executable };

  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "hooks" },
      { scheme: "untitled", language: "hooks" },
    ],
    synchronize: {
      // Rules import other rule files, and `hookc.toml` and schema files
      // change what a rule means: the server hears of their changes.
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{*.hooks,hookc.toml,*.schema.toml}",
      ),
    },
    outputChannel: output,
  };

  client = new LanguageClient("hookc", "hookc", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    client = undefined;
    const choice = await vscode.window.showErrorMessage(
      `hookc: could not start \`${command} lsp\`: ${message}. ` +
        "Install hookc, or set `hookc.path` to the hookc binary.",
      "Open Settings",
    );
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "hookc.path");
    }
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}
