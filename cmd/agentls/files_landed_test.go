package main

// Issue 21 in the editors' run views (DESIGN.md E16, E18, T22): under a
// command's result, the files it added, changed and deleted that landed
// (S9), one a line, with control characters made visible. The headless
// client's text and --json are tested in lspserver/headless
// (files_landed_test.go).
//
//   - VS Code: editors/vscode/test/runs.test.ts renders run events through
//     src/runs.ts in Node (the vscode module is test/vscode.ts), type-checked
//     by tsc and bundled by esbuild from editors/vscode/node_modules.
//   - Neovim: editors/nvim/test/runs_files_landed.lua renders run events
//     through the plugin's runs.lua in headless nvim and, with
//     AGENTLS_E2E=1, runs execute against the real server, whose scripted
//     model calls run_command.
//
// Without nvim or `npm ci` in editors/vscode they are skipped, unless
// AGENTLS_E2E=1 (.ci/install-e2e.sh installs both), where that is a failure.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/llmtest"
)

// filesLandedCommand is what the scripted model runs: it adds a file,
// formats a badly formatted main.go, deletes a file and adds one whose
// name holds an escape sequence and a bidi override.
const filesLandedCommand = `echo x > new.txt && gofmt -w main.go && rm old.txt && echo x > $'e\x1b[31mvil\u202e.txt'`

// needTool returns the path of a tool the test needs, or skips the test
// without it (fails with AGENTLS_E2E=1).
func needTool(t *testing.T, what, path string) string {
	t.Helper()
	if !filepath.IsAbs(path) {
		p, err := exec.LookPath(path)
		if err != nil {
			needFailed(t, what, err)
		}
		return p
	}
	if _, err := os.Stat(path); err != nil {
		needFailed(t, what, err)
	}
	return path
}

func needFailed(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv(e2eEnv) == "1" {
		t.Fatalf("%s=1 but %s is missing (run .ci/install-e2e.sh): %v", e2eEnv, what, err)
	}
	t.Skipf("%s is missing (run .ci/install-e2e.sh): %v", what, err)
}

// TestFilesLanded_Issue21_VSCodeRunView: the VS Code run view lists a
// command's files under its result (E16, E18, T22).
func TestFilesLanded_Issue21_VSCodeRunView(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	vsc := filepath.Join(repo, "editors", "vscode")
	node := needTool(t, "node", "node")
	tsc := needTool(t, "tsc (npm ci in editors/vscode)", filepath.Join(vsc, "node_modules", ".bin", "tsc"))
	esbuild := needTool(t, "esbuild (npm ci in editors/vscode)", filepath.Join(vsc, "node_modules", ".bin", "esbuild"))
	// The test against the extension's real types, as `npm run check` does for src/.
	check := exec.Command(tsc, "--noEmit", "--strict", "--target", "ES2022", "--lib", "ES2022", "--module", "node16",
		"--moduleResolution", "node16", "--skipLibCheck", "--esModuleInterop", "--types", "node,vscode",
		"test/runs.test.ts", "test/vscode.ts")
	if out, err := runBounded(t, check, vsc, os.Environ()); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	bundle := filepath.Join(t.TempDir(), "runs.test.cjs")
	build := exec.Command(esbuild, "test/runs.test.ts", "--bundle", "--platform=node", "--format=cjs",
		"--alias:vscode=./test/vscode.ts", "--outfile="+bundle, "--log-level=error")
	if out, err := runBounded(t, build, vsc, os.Environ()); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	out, err := runBounded(t, exec.Command(node, bundle), vsc, os.Environ())
	if err != nil {
		t.Fatalf("editors/vscode/test/runs.test.ts: %v\n%s", err, out)
	}
	t.Logf("editors/vscode/test/runs.test.ts:\n%s", out)
}

// TestFilesLanded_Issue21_Neovim: the Neovim run buffer lists a command's
// files under its result (E16, E18, T22); with AGENTLS_E2E=1 also against
// the real server and a command that really lands them.
func TestFilesLanded_Issue21_Neovim(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	nvim := needTool(t, "nvim", "nvim")
	t.Run("render", func(t *testing.T) {
		runNvimFilesLanded(t, repo, nvim, filesLandedWorkspace(t), os.Environ())
	})
	t.Run("server", func(t *testing.T) {
		if os.Getenv(e2eEnv) != "1" {
			t.Skipf("the real server in Neovim runs with %s=1", e2eEnv)
		}
		bin := buildAgentls(t)
		call, err := json.Marshal(map[string]any{"tool_calls": []map[string]any{{"id": "c1", "name": "run_command",
			"arguments": map[string]string{"command": filesLandedCommand}}}})
		if err != nil {
			t.Fatal(err)
		}
		script, err := llmtest.ParseScript([]byte(string(call) + "\n" + `{"content":"Formatted main.go."}`))
		if err != nil {
			t.Fatal(err)
		}
		model := llmtest.NewServer(script)
		t.Cleanup(model.Close)
		env := append(modelEnv(t, model), "AGENTLS_TEST_BIN="+bin, "AGENTLS_TEST_COMMAND="+filesLandedCommand)
		runNvimFilesLanded(t, repo, nvim, filesLandedWorkspace(t), env)
		if model.Remaining() != 0 {
			t.Errorf("the fake model has %d scripted turns left", model.Remaining())
		}
	})
}

// filesLandedWorkspace is a Go module with a badly formatted main.go and
// a file to delete.
func filesLandedWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"go.mod":  "module example.com/landed\n\ngo 1.22\n",
		"main.go": "package main\nfunc main(){\nprintln(\"hi\")\n}\n",
		"old.txt": "old\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// runNvimFilesLanded runs editors/nvim/test/runs_files_landed.lua in ws.
func runNvimFilesLanded(t *testing.T, repo, nvim, ws string, env []string) {
	t.Helper()
	env = append(env, "AGENTLS_TEST_PLUGIN="+filepath.Join(repo, "editors", "nvim"))
	runNvimScript(t, nvim, filepath.Join(repo, "editors", "nvim", "test", "runs_files_landed.lua"), ws, env, "AGENTLS_TEST_RESULT")
}
