package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentls/agentls/agent/llmtest"
)

// agentlsLink is the test binary linked as "agentls": run as that name it
// is agentls (testscript.Main in TestMain), without a build.
func agentlsLink(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "agentls")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// scriptedModel serves turns (JSON lines) on loopback.
func scriptedModel(t *testing.T, turns ...string) *llmtest.Server {
	t.Helper()
	s, err := llmtest.ParseScript([]byte(strings.Join(turns, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// a19Command prints 30 numbered lines and a line on stderr and exits 2.
const a19Command = `seq 1 30; echo broken >&2; touch out.txt; exit 2`

// A19 (issue 25, "done when"): a script that reads `agentls exec --json`
// line by line, as a CI job does, can print the model's text, every
// command with its output and exit code, and each approval — from stdout
// alone, without reading the session store.
func TestHeadless_A19_ScriptReadsExecJSON(t *testing.T) {
	model := scriptedModel(t,
		`{"content":"I will run the tests.","tool_calls":[{"id":"c1","name":"run_command","arguments":{"command":`+jsonString(a19Command)+`}}]}`,
		`{"tool_calls":[{"id":"w1","name":"write_file","arguments":{"path":"a.txt","content":"new\n"}}]}`,
		`{"content":"The tests fail; I changed a.txt."}`)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(agentlsLink(t), "exec", "--json", "--approve=all", "run the tests and fix a.txt")
	cmd.Dir, cmd.Env = ws, modelEnv(t, model)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	transcript := followJSON(t, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agentls exec: %v\nstderr:\n%s", err, &stderr)
	}
	want := []string{
		"model: I will run the tests.",
		"approval approved: agentls wants to run run_command (execute):",
		"command: " + a19Command + " → exit 2",
		"  | [stdout]", "  | 1", "  | 4", "lines left out", "  | 27", "  | 30", "  | [stderr]", "  | broken",
		"approval approved: Apply write_file: a.txt",
		"model: The tests fail; I changed a.txt.",
		"result: done, 1 applied",
	}
	got := strings.Join(transcript, "\n")
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the script's transcript lacks %q (in order):\n%s", w, got)
		}
		rest = rest[i+len(w):]
	}
}

// followJSON is the script: it reads one event per line as they come and
// writes what a person wants to read of them.
func followJSON(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	var text strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Type, Text, Subject, Output, Decision, Question, Status string
			ExitCode                                                *int
			Edits                                                   struct{ Applied int }
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON event: %q", sc.Text())
		}
		if e.Type != "text" && text.Len() > 0 {
			out = append(out, "model: "+text.String())
			text.Reset()
		}
		switch e.Type {
		case "text":
			text.WriteString(e.Text)
		case "approval":
			q, _, _ := strings.Cut(e.Question, "\n")
			out = append(out, fmt.Sprintf("approval %s: %s", e.Decision, q))
		case "tool_result":
			if e.ExitCode != nil {
				out = append(out, fmt.Sprintf("command: %s → exit %d", e.Subject, *e.ExitCode))
				for _, l := range strings.Split(strings.TrimSuffix(e.Output, "\n"), "\n") {
					out = append(out, "  | "+l)
				}
			}
		case "result":
			out = append(out, fmt.Sprintf("result: %s, %d applied", e.Status, e.Edits.Applied))
		}
	}
	return out
}

// A19 (issue 25): the exit codes of the binary: 2 for a bad --range, 3
// when a proposed change did not land, 4 for review --fail-on with a
// finding at that level; review --format sarif writes a SARIF 2.1.0 log
// valid against the official schema.
func TestHeadless_A19_ExitCodesOfTheBinary(t *testing.T) {
	bin := agentlsLink(t)
	finding := `{"tool_calls":[{"id":"f1","name":"report_finding","arguments":{"path":"a.go","line":2,"severity":"error","message":"bad"}}]}`
	for _, tt := range []struct {
		name  string
		turns []string
		args  []string
		want  int
	}{
		{"bad range", nil, []string{"review", "--file", "a.go", "--range", "2:1-1:1"}, 2},
		{"bad range syntax", nil, []string{"plan", "--file", "a.go", "--range", "x", "hi"}, 2},
		{"--json with --format sarif", nil, []string{"review", "--json", "--format", "sarif"}, 2},
		{"--fail-on with an unknown level", nil, []string{"review", "--fail-on", "fatal"}, 2},
		{"denied edit", []string{`{"tool_calls":[{"id":"w","name":"write_file","arguments":{"path":"a.go","content":"x"}}]}`, `{"content":"ok"}`},
			[]string{"exec", "--approve=never", "change it"}, 3},
		{"review --fail-on=error", []string{finding, `{"content":"ok"}`}, []string{"review", "--fail-on=error"}, 4},
		{"review --fail-on=error, format sarif", []string{finding, `{"content":"ok"}`}, []string{"review", "--fail-on", "error", "--format", "sarif"}, 4},
		{"review without --fail-on", []string{finding, `{"content":"ok"}`}, []string{"review"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			model := scriptedModel(t, tt.turns...)
			cmd := osexec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ws, modelEnv(t, model), &stdout, &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, &stdout, &stderr)
			}
			if slicesContain(tt.args, "sarif") && tt.want != 2 {
				checkSARIF(t, stdout.Bytes())
			}
		})
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkSARIF validates doc against testdata/sarif's SARIF 2.1.0 schema
// and checks it holds the error finding.
func checkSARIF(t *testing.T, doc []byte) {
	t.Helper()
	f, err := os.Open("../../testdata/sarif/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schema, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, doc)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("not valid SARIF 2.1.0: %v\n%s", err, doc)
	}
	if !bytes.Contains(doc, []byte(`"level": "error"`)) || !bytes.Contains(doc, []byte(`"uri": "a.go"`)) {
		t.Errorf("the finding is not in the log:\n%s", doc)
	}
}

// E17 (issue 25): Ctrl-C while the model thinks: exit code 1 and
// "agentls: cancelled", not Go's "context canceled".
func TestHeadless_E17_CtrlCSaysCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildAgentls(t)
	model := scriptedModel(t, `{"delay_ms":600000}`)
	cmd := osexec.Command(bin, "plan", "why")
	cmd.Dir, cmd.Env = t.TempDir(), modelEnv(t, model)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	deadline := time.Now().Add(time.Minute)
	for len(model.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the model got no request:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	got := stdout.String() + stderr.String()
	if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Contains(got, "context canceled") || !strings.Contains(got, "cancelled") {
		t.Errorf("exit %d, output:\n%s\nwant exit 1 and \"cancelled\" in plain words", code, got)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
