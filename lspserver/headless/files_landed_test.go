package headless_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/headless"
	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// TestMain builds the sandbox helper, so that run_command runs staged
// (S9) as it does for a user; the test binary is the helper too
// (MaybeRunHelper), for the runner's fallback.
func TestMain(m *testing.M) {
	exec.MaybeRunHelper()
	helper, cleanup := sandboxtest.MustBuildHelper("-buildvcs=false")
	testExec = exec.New(&exec.Options{Helper: helper})
	code := m.Run()
	testExec.Close()
	cleanup()
	os.Exit(code)
}

var testExec *exec.Runner

// landCommand adds a file, formats a badly formatted main.go, deletes a
// file and adds one whose name holds an escape sequence and a bidi
// override.
const landCommand = `echo x > new.txt && gofmt -w main.go && rm old.txt && echo x > $'e\x1b[31mvil\u202e.txt'`

const evilName = "e\x1b[31mvil\u202e.txt"

// landed runs execute headless on a fresh module with the scripted model
// (agent/script) calling run_command with landCommand.
func landed(t *testing.T, o headless.Options) (dir, stdout, stderr string, code int) {
	t.Helper()
	if !testExec.Layers().Has(exec.LayerStaging) {
		t.Fatalf("staging is missing here: %s", testExec.Layers().Missing[exec.LayerStaging])
	}
	o.Mode, o.Instruction = agent.ModeExecute, "format main.go"
	return scripted(t, map[string]string{
		"go.mod":  "module example.com/landed\n\ngo 1.22\n",
		"main.go": "package main\nfunc main(){\nprintln(\"hi\")\n}\n",
		"old.txt": "old\n",
	}, []any{
		map[string]any{"tool_calls": []map[string]any{{"id": "c1", "name": "run_command",
			"arguments": map[string]string{"command": landCommand}}}},
		map[string]any{"content": "Formatted main.go."},
	}, o)
}

// checkLanded checks the workspace after landCommand landed.
func checkLanded(t *testing.T, dir string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "main.go")); err != nil || !strings.Contains(string(b), "func main() {\n\tprintln") {
		t.Errorf("main.go was not formatted: %q, %v", b, err)
	}
	for _, name := range []string{"new.txt", evilName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%q did not land: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt is still there: %v", err)
	}
}

// E16/E18/A19, issue 21: after a command's result, the text lists the
// files it added, changed and deleted (control characters made visible,
// T22), in place of the [files …] lines of its output.
func TestHeadless_Issue21_FilesLanded_Text(t *testing.T) {
	dir, stdout, stderr, code := landed(t, headless.Options{Approve: headless.ApproveAll})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checkLanded(t, dir)
	lines := strings.Split(stdout, "\n")
	head := "  ✓ run_command " + landCommand + ": exit 0"
	i := 0
	for i < len(lines) && lines[i] != head {
		i++
	}
	if i+6 > len(lines) {
		t.Fatalf("no line %q in the output:\n%s", head, stdout)
	}
	want := []string{
		head,
		`    + added e\x1b[31mvil\u202e.txt`,
		"    ~ changed main.go",
		"    + added new.txt",
		"    - deleted old.txt",
	}
	if diff := cmp.Diff(want, lines[i:i+5]); diff != "" {
		t.Errorf("the command's files (-want +got):\n%s\nstdout:\n%s", diff, stdout)
	}
	if !regexp.MustCompile(`^    │ exit code 0, \S+$`).MatchString(lines[i+5]) {
		t.Errorf("after the files: %q, want the output's head\nstdout:\n%s", lines[i+5], stdout)
	}
	if strings.Contains(stdout, "[files ") {
		t.Errorf("the [files …] lines are shown besides the list:\n%s", stdout)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\u202e") {
		t.Errorf("a raw control character reached the terminal:\n%q\n%q", stdout, stderr)
	}
	if r := strings.Index(stdout, "\ndone (session "); r < 0 || r < strings.Index(stdout, head) {
		t.Errorf("the result does not follow the command's outcome:\n%s", stdout)
	}
}

// A19, issue 21: with --json the event of the command's result carries its
// files as they are (JSON escapes what must be), before the result event.
func TestHeadless_Issue21_FilesLanded_JSON(t *testing.T) {
	dir, stdout, stderr, code := landed(t, headless.Options{Approve: headless.ApproveAll, JSON: true})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checkLanded(t, dir)
	type toolResult struct {
		Type     string                `json:"type"`
		Tool     string                `json:"tool"`
		OK       bool                  `json:"ok"`
		Code     string                `json:"code"`
		Turn     int                   `json:"turn"`
		Subject  string                `json:"subject"`
		ExitCode *int                  `json:"exitCode"`
		Output   string                `json:"output"`
		Files    []command.CommandFile `json:"files"`
	}
	var types []string
	var got []toolResult
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e toolResult
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON event: %q: %v", sc.Bytes(), err)
		}
		types = append(types, e.Type)
		if e.Type == "tool_result" {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d tool_result events, want 1; events %v\n%s", len(got), types, stdout)
	}
	e := got[0]
	wantFiles := []command.CommandFile{
		{Path: evilName, Change: "added"},
		{Path: "main.go", Change: "changed"},
		{Path: "new.txt", Change: "added"},
		{Path: "old.txt", Change: "deleted"},
	}
	if diff := cmp.Diff(wantFiles, e.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if e.Tool != "run_command" || !e.OK || e.Code != "" || e.Turn != 1 || e.Subject != landCommand ||
		e.ExitCode == nil || *e.ExitCode != 0 || !strings.HasPrefix(e.Output, "exit code 0, ") {
		t.Errorf("tool_result event %+v", e)
	}
	if types[len(types)-1] != "result" {
		t.Errorf("events %v, want the result last", types)
	}
}

// Issue 21: a command that was refused lands nothing, and says so: no
// files in either form.
func TestHeadless_Issue21_FilesLanded_Refused(t *testing.T) {
	dir, stdout, stderr, code := landed(t, headless.Options{Approve: headless.ApproveNever})
	if code != headless.ExitNotLanded { // A19: the command proposed was denied
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "  ✗ run_command "+landCommand+" refused: approval_denied") {
		t.Errorf("no refusal in the output:\n%s", stdout)
	}
	if strings.Contains(stdout, "added") || strings.Contains(stdout, "│") {
		t.Errorf("a refused command lists files or output:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt landed: %v", err)
	}
}
