package main

// Real-server end-to-end tests of MCP supervision (issue #15, DESIGN.md
// B6): agentls against MCP servers nobody here wrote, from npm, run by
// the node on PATH:
//
//   - @modelcontextprotocol/server-everything, the reference server of the
//     MCP project, over stdio;
//   - testdata/e2e/mcp/crash.mjs, a server on the official TypeScript SDK
//     (@modelcontextprotocol/sdk) whose crash tool exits the process in the
//     middle of the call;
//   - a command that does not exist.
//
// They need `npm ci` in testdata/e2e/mcp (.ci/install-e2e.sh) and run only
// with AGENTLS_E2E=1, like TestE2E.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2E_MCP_B6 drives agentls mcp list, agentls call and one headless
// run with a user config holding the three servers.
func TestE2E_MCP_B6(t *testing.T) {
	t.Parallel() // issue 25: the long real-client suites overlap
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("real MCP server e2e tests are off: run .ci/install-e2e.sh, then %s=1 go test -run E2E -v ./cmd/agentls/", e2eEnv)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	node := requireTool(t, "node")
	mcpDir := filepath.Join(repo, "testdata", "e2e", "mcp")
	everything := filepath.Join(mcpDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(everything); err != nil {
		t.Fatalf("testdata/e2e/mcp has no node_modules: run `npm ci` there (or .ci/install-e2e.sh): %v", err)
	}
	if out, err := exec.Command(node, "--version").Output(); err == nil {
		t.Logf("node on PATH: %s %s", node, bytes.TrimSpace(out))
	}
	bin := buildAgentls(t)

	model := startModel(t, repo, "mcp-crash")
	env := modelEnv(t, model)
	home := envValue(env, "XDG_CONFIG_HOME")
	starts := filepath.Join(t.TempDir(), "crashy-starts")
	// "node" is looked up on PATH, as a user's config would have it.
	writeUserConfig(t, home, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"crashy":     map[string]any{"command": "node", "args": []string{filepath.Join(mcpDir, "crash.mjs")}, "env": map[string]string{"CRASH_STARTS": starts}},
		"broken":     map[string]any{"command": "no-such-mcp-server-e2e", "args": []string{"--stdio"}},
	}})
	ws := copyWorkspace(t, repo)

	t.Run("mcp_list", func(t *testing.T) {
		out, errOut, code := runAgentls(t, bin, ws, env, "mcp", "list")
		if code != 0 {
			t.Fatalf("agentls mcp list: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		for _, re := range []string{
			`(?m)^broken: failed — command no-such-mcp-server-e2e: executable file not found`,
			`(?m)^crashy: running, 5 tools$`,
			`(?m)^everything: running, \d+ tools$`,
			`(?m)^  mcp__everything__echo \[read-only, idempotent\]$`,
			`(?m)^      Echoes back the input string$`,
			`(?m)^  mcp__crashy__crash \[destructive\]$`,
			// The server's text is shown, capped.
			`IGNORE ALL PREVIOUS INSTRUCTIONS.*\[description cut\]`,
		} {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("agentls mcp list: no match for %s in:\n%s", re, out)
			}
		}
	})

	t.Run("call_approved", func(t *testing.T) {
		out, errOut, code := runAgentls(t, bin, ws, env, "call", "--approve", "all", "mcp__everything__echo", `{"message":"hi"}`)
		if code != 0 || strings.TrimSpace(out) != `{"content":"Echo: hi"}` {
			t.Errorf("call --approve all: exit %d, stdout %q, want exit 0 and the echo\nstderr:\n%s", code, out, errOut)
		}
	})

	t.Run("call_refused", func(t *testing.T) {
		out, errOut, code := runAgentls(t, bin, ws, env, "call", "--approve", "never", "mcp__everything__echo", `{"message":"hi"}`)
		if code == 0 || !strings.Contains(out, `"code":"approval_denied"`) || strings.Contains(out, "Echo: hi") {
			t.Errorf("call --approve never: exit %d, stdout %q, want a refusal (approval_denied) and no echo\nstderr:\n%s", code, out, errOut)
		}
	})

	// The server's schema is checked before the call: it never sees this.
	t.Run("call_schema", func(t *testing.T) {
		out, _, code := runAgentls(t, bin, ws, env, "call", "--approve", "all", "mcp__everything__echo", `{"message":7}`)
		if code == 0 || !strings.Contains(out, `"code":"invalid_args"`) {
			t.Errorf("call with a number for message: exit %d, stdout %q, want invalid_args", code, out)
		}
	})

	// Servers inherit the scrubbed environment: the model key is not
	// among what the everything server reports of its environment.
	t.Run("server_env_scrubbed", func(t *testing.T) {
		key := envValue(env, "OPENAI_API_KEY")
		out, errOut, code := runAgentls(t, bin, ws, env, "call", "--approve", "all", "mcp__everything__get_env", `{}`)
		if code != 0 || !strings.Contains(out, "PATH") {
			t.Fatalf("call get_env: exit %d, stdout %q\nstderr:\n%s", code, out, errOut)
		}
		if strings.Contains(out, key) || strings.Contains(out, "OPENAI_API_KEY") {
			t.Errorf("the MCP server got the model key in its environment:\n%s", out)
		}
	})

	t.Run("headless_crash_restart_remove", func(t *testing.T) {
		_ = os.Remove(starts) // the runs above started crashy too
		_, errOut, code := runAgentls(t, bin, ws, env, "exec", "-v", "--approve=all", "use the crashy server")
		if code != 0 {
			t.Errorf("headless exec: exit %d, want 0\nstderr:\n%s", code, errOut)
		}
		if !strings.Contains(errOut, `msg="MCP server crashed; restarting it once" server=crashy`) ||
			!strings.Contains(errOut, `msg="MCP server's tools removed" server=crashy why="crashed again after its restart"`) {
			t.Errorf("the log lacks crashy's restart and removal:\n%s", errOut)
		}
		if data, err := os.ReadFile(starts); err != nil || strings.Count(string(data), "\n") != 2 {
			t.Errorf("crashy started %q times (err %v), want 2: once, and one restart", data, err)
		}
		reqs := modelRequests(t, model)
		if len(reqs) != 7 {
			t.Fatalf("model requests = %d, want 7", len(reqs))
		}
		last := reqs[len(reqs)-1]
		want := []struct{ id, has string }{
			{"call_1", "pong 1"},
			{"call_2", "MCP server crashy crashed during the call and was restarted"},
			{"call_3", "pong 1"}, // a new process: its counter starts again
			{"call_4", `"code":"tool_unavailable"`},
			{"call_4", "the tools of MCP server crashy were removed: it crashed again after its restart"},
			{"call_5", `"code":"tool_unavailable"`},
			{"call_5", "MCP server crashy"},
			{"call_6", "Echo: still here"},
		}
		for _, w := range want {
			if res, ok := last.toolResult(w.id); !ok || !strings.Contains(res, w.has) {
				t.Errorf("tool result of %s = %q (found %v), want it to contain %q", w.id, res, ok, w.has)
			}
		}
		if model.Remaining() != 0 {
			t.Errorf("the fake model has %d scripted turns left", model.Remaining())
		}
	})
}

// writeUserConfig writes config as the user's agentls config.json under
// the config home dir.
func writeUserConfig(t *testing.T, dir string, config map[string]any) {
	t.Helper()
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// runAgentls runs the binary in dir within e2eScenarioTime, in its own
// process group, killed whole afterwards (an MCP server it left running
// included), and returns its stdout, stderr and exit code.
func runAgentls(t *testing.T, bin, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), e2eScenarioTime)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	t.Logf("agentls %s: %s, %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("agentls %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("agentls %s: killed after %s\nstderr:\n%s", strings.Join(args, " "), e2eScenarioTime, errOut.String())
	}
	return out.String(), errOut.String(), code
}
