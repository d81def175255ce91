package main

// Real-client end-to-end tests (STYLE.md §8 "Real clients", DESIGN.md E1-E13).
// The agentls binary is driven by two clients that share no code with it:
//
//   - headless Neovim with the plugin in editors/nvim, on Debian's 0.7.2
//     and on a current release unpacked by .ci/nvim-current.sh
//     (testdata/e2e/nvim/init.lua: plan, execute with the per-hunk review,
//     review, cancel);
//   - a Node client on Microsoft's vscode-jsonrpc and
//     vscode-languageserver-protocol (testdata/e2e/node/client.mjs), one
//     process per scenario;
//   - the packaged VS Code extension in code-server, a real VS Code, driven
//     by Chromium (e2e_vscode_test.go, testdata/e2e/vscode/driver.mjs).
//
// Each scenario gets a fresh copy of testdata/e2e/workspace and a fake
// OpenAI server (agent/llmtest) playing testdata/e2e/scripts/<scenario>.jsonl.
//
// The tests need nvim, node and `npm ci` in testdata/e2e/node;
// .ci/install-e2e.sh sets all of that up. They run only when asked:
//
//	AGENTLS_E2E=1 go test -race -run E2E -v ./cmd/agentls/
//
// With AGENTLS_E2E=1 a missing tool is a failure, not a skip.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

const (
	e2eEnv          = "AGENTLS_E2E"
	e2eScenarioTime = 60 * time.Second // one client process, server included
)

// TestE2E builds the binary once and runs every real-client scenario
// against it: VS Code beside the others, which run one after the other
// (the machines have two cores).
func TestE2E(t *testing.T) {
	t.Parallel() // issue 25: the long real-client suites overlap
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("real-client e2e tests (headless Neovim, Node vscode-jsonrpc client) are off: "+
			"run .ci/install-e2e.sh, then %s=1 go test -run E2E -v ./cmd/agentls/", e2eEnv)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	nvim := requireTool(t, "nvim")
	node := requireTool(t, "node")
	nodeDir := filepath.Join(repo, "testdata", "e2e", "node")
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		t.Fatalf("testdata/e2e/node has no node_modules: run `npm ci` there (or .ci/install-e2e.sh): %v", err)
	}
	bin := buildAgentls(t)

	// E12: the packaged extension in a real VS Code (e2e_vscode_test.go).
	// It is the longest scenario and spends a minute of it idle on purpose
	// (E18), so it runs beside the others rather than after them: t.Run
	// from a goroutine is not held by go test's -parallel limit (issue 25,
	// the suite's time).
	var vscode sync.WaitGroup
	vscode.Add(1)
	go func() {
		defer vscode.Done()
		t.Run("VSCode_E12", func(t *testing.T) { testVSCode(t, repo, bin) })
	}()
	defer vscode.Wait()

	t.Run("Node", func(t *testing.T) {
		for _, sc := range nodeScenarios {
			t.Run(sc.name, func(t *testing.T) {
				model := startModel(t, repo, "node-"+sc.scenario)
				ws := copyWorkspace(t, repo)
				out, err := runBounded(t, exec.Command(node, filepath.Join(nodeDir, "client.mjs"),
					"--server", bin, "--workspace", ws, "--scenario", sc.scenario), ws, modelEnv(t, model))
				if err != nil {
					t.Errorf("node client, scenario %s: %v\n%s", sc.scenario, err, out)
				} else {
					t.Logf("node client, scenario %s:\n%s", sc.scenario, out)
				}
				if sc.check != nil {
					sc.check(t, modelRequests(t, model))
				}
				if sc.checkWS != nil {
					sc.checkWS(t, modelRequests(t, model), ws)
				}
				if sc.allTurns && model.Remaining() != 0 {
					t.Errorf("the fake model has %d scripted turns left: the server made fewer model requests than scripted", model.Remaining())
				}
			})
		}
	})

	// E16: the Neovim run view, statusline, plans and :checkhealth (e2e_nvim_runs_test.go).
	t.Run("Neovim_runs_E16", func(t *testing.T) { testNvimRuns(t, repo, bin, nvim) })

	// E13: the Neovim plugin, headless, with scripted answers to its
	// prompts and keys typed into its review: on Debian's 0.7.2 and on a
	// current Neovim (.ci/nvim-current.sh).
	t.Run("Neovim_E13", func(t *testing.T) { runNeovim(t, repo, bin, nvim) })
	current := filepath.Join(repo, ".cache", "nvim-current", "bin", "nvim")
	if _, err := os.Stat(current); err != nil {
		t.Fatalf("no current Neovim at %s (run .ci/install-e2e.sh): %v", current, err)
	}
	t.Run("Neovim_current_E13", func(t *testing.T) { runNeovim(t, repo, bin, current) })
}

// runNeovim drives testdata/e2e/nvim/init.lua in headless nvim.
func runNeovim(t *testing.T, repo, bin, nvim string) {
	model := startModel(t, repo, "nvim")
	ws := copyWorkspace(t, repo)
	env := append(modelEnv(t, model),
		"AGENTLS_E2E_BIN="+bin,
		"AGENTLS_E2E_PLUGIN="+filepath.Join(repo, "editors", "nvim"),
	)
	if res, ok := runNvimScript(t, nvim, filepath.Join(repo, "testdata", "e2e", "nvim", "init.lua"), ws, env, "AGENTLS_E2E_RESULT"); !ok {
		t.Logf("prompts answered: %v", res.Prompts)
	}
	reqs := modelRequests(t, model)
	if len(reqs) > 0 {
		checkPlanTools(t, reqs[0])
	}
	if model.Remaining() != 0 {
		t.Errorf("the fake model has %d scripted turns left", model.Remaining())
	}
	// E13: the model is told which hunk the user rejected in the review.
	var partial string
	for _, r := range reqs {
		if res, ok := r.toolResult("call_5"); ok {
			partial = res
		}
	}
	if !strings.Contains(partial, `{"index":0,"lines":"6","applied":true}`) || !strings.Contains(partial, `{"index":1,"lines":"10","applied":false}`) {
		t.Errorf("E13: the tool result for the two-hunk edit should say hunk 1 applied, hunk 2 rejected; got %q", partial)
	}
	// T17: an edit whose file changed on disk during the review is refused
	// by the plugin, and the model is told why.
	var staleRes string
	for _, r := range reqs {
		if res, ok := r.toolResult("call_7"); ok {
			staleRes = res
		}
	}
	if !strings.Contains(staleRes, "changed on disk") || strings.Contains(staleRes, `"applied":true`) {
		t.Errorf("T17: the edit refused during the review should reach the model as not applied, file changed on disk; got %q", staleRes)
	}
	// T16: the user's edited text reached the model as "modify".
	raw := model.Requests()
	if !slices.ContainsFunc(raw, func(r json.RawMessage) bool {
		return strings.Contains(string(r), `\"answer\":\"modify\"`) && strings.Contains(string(r), "git push --dry-run")
	}) {
		last := ""
		if len(raw) > 0 {
			last = string(raw[len(raw)-1])
		}
		t.Errorf("no model request has the modified human_confirm answer:\n%s", tail2(last, 600))
	}
	// A16: "execute this plan" sent the plan's conversation and the
	// instruction to carry it out.
	if !slices.ContainsFunc(raw, func(r json.RawMessage) bool {
		s := string(r)
		return strings.Contains(s, "Carry out the plan above") && strings.Contains(s, "Plan greeting the whole world") &&
			strings.Contains(s, `greet(\"whole world\") in main.go`)
	}) {
		t.Errorf("no model request continues the plan's session with \"carry out the plan above\"")
	}
}

func tail2(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

type nodeScenario struct {
	name     string // subtest name, with the requirement IDs it proves
	scenario string // client.mjs --scenario and scripts/node-<scenario>.jsonl
	allTurns bool   // every scripted model turn must be used
	check    func(t *testing.T, reqs []modelRequest)
	// checkWS also gets the workspace the scenario ran in.
	checkWS func(t *testing.T, reqs []modelRequest, ws string)
}

// staleToModel: T17, the model is told stale_file with the hash of what
// main.go holds now, and a hint to read it again.
func staleToModel(t *testing.T, reqs []modelRequest, ws string) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	res, ok := reqs[1].toolResult("call_1")
	data, err := os.ReadFile(filepath.Join(ws, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if !ok || !strings.Contains(res, "stale_file") || !strings.Contains(res, "sha256:"+hex.EncodeToString(sum[:])) || !strings.Contains(res, "read") {
		t.Errorf("T17: the model should get stale_file with main.go's new hash and a hint to re-read; tool result for call_1: %q (found %v)", res, ok)
	}
}

var nodeScenarios = []nodeScenario{
	{name: "execute_E2_E3_E6_E8_E9", scenario: "execute", allTurns: true, check: func(t *testing.T, reqs []modelRequest) {
		if len(reqs) != 2 {
			t.Fatalf("model requests = %d, want 2 (edit, then final answer)", len(reqs))
		}
		if !slices.Contains(reqs[0].toolNames(), "edit_file") {
			t.Errorf("E6: execute offers no edit_file tool; tools: %v", reqs[0].toolNames())
		}
		if res, ok := reqs[1].toolResult("call_1"); !ok || strings.Contains(res, "approval_denied") {
			t.Errorf("E6: after an accepted edit the model should get a success result for call_1, got %q (found %v)", res, ok)
		}
	}},
	{name: "execute_rejected_E6", scenario: "execute-rejected", allTurns: true, check: func(t *testing.T, reqs []modelRequest) {
		if len(reqs) != 2 {
			t.Fatalf("model requests = %d, want 2", len(reqs))
		}
		if res, ok := reqs[1].toolResult("call_1"); !ok || !strings.Contains(res, "approval_denied") {
			t.Errorf("E6: a rejected edit must reach the model as approval_denied; tool result for call_1: %q (found %v)", res, ok)
		}
	}},
	{name: "execute_without_saveDocuments_E6", scenario: "execute-no-save", allTurns: true},
	{name: "session_plan_execute_revert_A16", scenario: "session", allTurns: true, check: func(t *testing.T, reqs []modelRequest) {
		if len(reqs) != 3 {
			t.Fatalf("model requests = %d, want 3 (plan, edit, final answer)", len(reqs))
		}
		msgs := reqs[1].Messages
		var last string
		_ = json.Unmarshal(msgs[len(msgs)-1].Content, &last)
		if len(msgs) != 4 || msgs[2].Role != "assistant" || !strings.Contains(last, "Carry out the plan above") {
			t.Errorf("A16: the execute's first request should be system, the plan's task and answer, and \"carry out the plan above\"; got %d messages, last %q", len(msgs), last)
		}
	}},
	{name: "execute_unsaved_buffer_E9", scenario: "execute-overlay", allTurns: true},
	{name: "review_E5", scenario: "review", allTurns: true},
	{name: "cancel_request_E8", scenario: "cancel-request"},
	{name: "cancel_command_E8", scenario: "cancel-command"},
	{name: "stale_while_asked_T17_E10", scenario: "stale-question", allTurns: true, checkWS: staleToModel},
	{name: "stale_while_preview_open_T17_E14", scenario: "stale-annotated", allTurns: true, checkWS: staleToModel},
	{name: "sublime_asked_first_E14", scenario: "sublime", allTurns: true},
	{name: "control_files_E15", scenario: "control-files", allTurns: true},
	{name: "bad_input_E3", scenario: "bad-input", check: func(t *testing.T, reqs []modelRequest) {
		if len(reqs) != 0 {
			t.Errorf("bad input reached the model: %d requests", len(reqs))
		}
	}},
}

// checkPlanTools: E4, the plan run offers the model read-only tools only.
func checkPlanTools(t *testing.T, req modelRequest) {
	t.Helper()
	readOnly := []string{"read_file", "list_dir", "search"}
	for _, name := range req.toolNames() {
		if !slices.Contains(readOnly, name) {
			t.Errorf("E4: the plan request offers tool %q; plan may only offer %v", name, readOnly)
		}
	}
}

func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s=1 but %s is not installed (run .ci/install-e2e.sh): %v", e2eEnv, name, err)
	}
	return p
}

// buildAgentls returns the binary under test, built with -race when the
// test binary has it, so the real-client runs also hunt data races, and
// agentls-sandbox beside it. It is built once per test process and shared
// (issue 25: eleven builds took 55 s of the package's time); tests only
// run it, never change it or its directory.
func buildAgentls(t *testing.T) string {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.bin == "" && shared.err == nil {
		shared.bin, shared.err = buildShared()
		t.Logf("built %s and its sandbox helper in %s (race=%v)", shared.bin, shared.took.Round(time.Millisecond), raceEnabled())
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.bin
}

// shared is the binary buildAgentls built; TestMain removes its directory.
var shared struct {
	sync.Mutex
	dir, bin string
	took     time.Duration
	err      error
}

func buildShared() (string, error) {
	dir, err := os.MkdirTemp("", "agentls-test-bin-")
	if err != nil {
		return "", err
	}
	shared.dir = dir
	bin := filepath.Join(dir, "agentls")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	args = append(args, "github.com/agentls/agentls/cmd/agentls")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, goTool(), args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	// The sandbox helper next to it, as `go install ./cmd/...` puts it.
	if _, err := sandboxtest.BuildHelper(dir); err != nil {
		return "", err
	}
	shared.took = time.Since(start)
	return bin, nil
}

// removeShared removes what buildAgentls built.
func removeShared() {
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// startModel serves testdata/e2e/scripts/<name>.jsonl.
func startModel(t *testing.T, repo, name string) *llmtest.Server {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "testdata", "e2e", "scripts", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := llmtest.ParseScript(data)
	if err != nil {
		t.Fatalf("scripts/%s.jsonl: %v", name, err)
	}
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	return srv
}

// modelEnv is the environment of a client and the server it starts: the
// fake model, and private config/state/cache directories so nothing from
// the user's home (policy, sessions) leaks in.
func modelEnv(t *testing.T, model *llmtest.Server) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "AGENTLS_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "NVIM_LOG_FILE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"OPENAI_BASE_URL="+model.URL,
		"OPENAI_API_KEY=e2e-test-key",
		"AGENTLS_MODEL=e2e-fake-model",
	)
}

// copyWorkspace copies testdata/e2e/workspace into a fresh directory.
func copyWorkspace(t *testing.T, repo string) string {
	t.Helper()
	src := filepath.Join(repo, "testdata", "e2e", "workspace")
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dst = filepath.Join(dst, "ws")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// CopyFS keeps read-only modes from the source tree; the agent edits here.
	err = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runBounded runs cmd in dir within e2eScenarioTime. The process gets its
// own process group, killed whole on timeout, so a stuck server started by
// the client cannot outlive the test.
func runBounded(t *testing.T, cmd *exec.Cmd, dir string, env []string) ([]byte, error) {
	t.Helper()
	return runBoundedFor(t, cmd, dir, env, e2eScenarioTime)
}

// runBoundedFor runs cmd in dir with env, its output captured, in its
// own process group, killed whole after limit.
func runBoundedFor(t *testing.T, cmd *exec.Cmd, dir string, env []string, limit time.Duration) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd.Dir, cmd.Env = dir, env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("killed after %s: %w", limit, ctx.Err())
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return []byte(out.String()), err
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// modelRequest is the part of a chat-completions request the checks read.
type modelRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func modelRequests(t *testing.T, model *llmtest.Server) []modelRequest {
	t.Helper()
	var reqs []modelRequest
	for i, raw := range model.Requests() {
		var r modelRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Errorf("model request %d is not a chat-completions request: %v", i, err)
		}
		reqs = append(reqs, r)
	}
	return reqs
}

func (r modelRequest) toolNames() []string {
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Function.Name)
	}
	return names
}

// toolResult returns the text of the tool message answering call id.
func (r modelRequest) toolResult(id string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role != "tool" || m.ToolCallID != id {
			continue
		}
		var s string
		if err := json.Unmarshal(m.Content, &s); err == nil {
			return s, true
		}
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err == nil {
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(p.Text)
			}
			return b.String(), true
		}
		return string(m.Content), true
	}
	return "", false
}
