package headless_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/headless"
)

// testCommand prints 40 numbered lines and a line on stderr, and exits 3:
// its output's head and tail both matter.
const testCommand = `for i in $(seq 1 40); do echo "line $i"; done; echo oops >&2; touch made.txt; exit 3`

// commandTurns are a run that says something, runs testCommand, proposes
// an edit of a.txt and ends with a summary.
func commandTurns() []any {
	return []any{
		map[string]any{"content": "Let me run the tests first.", "tool_calls": []map[string]any{{"id": "c1", "name": "run_command",
			"arguments": map[string]string{"command": testCommand}}}},
		call("w1", "write_file", map[string]string{"path": "a.txt", "content": "b\n"}),
		map[string]any{"content": "Ran the tests and changed a.txt."},
	}
}

// A19/E16 (issue 25): the text mode streams the model's text, shows each
// command with its subject, the head and the tail of its output and its
// exit code, and says what each approval decided.
func TestHeadless_A19_StreamsCommandOutput(t *testing.T) {
	_, stdout, stderr, code := scripted(t, map[string]string{"a.txt": "a\n"}, commandTurns(),
		headless.Options{Mode: agent.ModeExecute, Instruction: "run the tests", Approve: headless.ApproveAll})
	if code != headless.ExitDone {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	wantInOrder(t, stdout,
		"Let me run the tests first.\n",
		"? agentls wants to run run_command (execute):\n  $ "+testCommand+"\n",
		"  → approved (--approve=all)\n",
		"  ✗ run_command "+testCommand+": exit 3\n",
		"    │ line 1\n", "    │ line 5\n",
		" lines left out …\n",
		"    │ line 40\n    │ [stderr]\n    │ oops\n",
		"? Apply write_file: a.txt", "→ approved (--approve=all)\n",
		"Ran the tests and changed a.txt.\n",
		"\ndone (session ",
	)
	if n := strings.Count(stdout, "Ran the tests and changed a.txt."); n != 1 {
		t.Errorf("the final answer is printed %d times, want once (streamed, not repeated as the summary):\n%s", n, stdout)
	}
	if strings.Contains(stdout, "line 20\n") {
		t.Errorf("the middle of the output is shown; want its head and tail:\n%s", stdout)
	}
}

// A19 (issue 25): with --approve=never the echo still shows the command
// that was denied, and says "denied"; never "answered on the terminal".
func TestHeadless_A19_ApprovalEchoSaysDecision(t *testing.T) {
	_, stdout, stderr, _ := scripted(t, map[string]string{"a.txt": "a\n"}, commandTurns(),
		headless.Options{Mode: agent.ModeExecute, Instruction: "run the tests", Approve: headless.ApproveNever})
	wantInOrder(t, stdout,
		"? agentls wants to run run_command (execute):\n  $ "+testCommand+"\n",
		"  → denied (--approve=never)\n",
		"? Apply write_file: a.txt", "→ denied (--approve=never)\n")
	_, stdout, stderr, _ = scripted(t, map[string]string{"a.txt": "a\n"}, commandTurns(),
		headless.Options{Mode: agent.ModeExecute, Instruction: "run the tests", Approve: headless.ApproveAsk, Stdin: strings.NewReader("2\n1\n")})
	wantInOrder(t, stdout, "? agentls wants to run run_command (execute): → denied on the terminal\n",
		"? Apply write_file: a.txt", "→ approved on the terminal\n")
	if strings.Contains(stdout+stderr, "answered on the terminal") {
		t.Errorf("the echo does not say the decision:\n%s", stdout)
	}
}

// A19 (issue 25): exit codes tell CI what happened: 0 everything proposed
// landed, 3 something proposed did not (a denied command, a rejected
// hunk), 1 the run failed.
func TestHeadless_A19_ExitCodes(t *testing.T) {
	edit := []any{call("w1", "write_file", map[string]string{"path": "a.txt", "content": "b\n"}), map[string]any{"content": "ok"}}
	for _, tt := range []struct {
		name    string
		turns   []any
		approve headless.Approve
		stdin   string
		want    int
	}{
		{"everything landed", edit, headless.ApproveAll, "", headless.ExitDone},
		{"the edit was denied", edit, headless.ApproveNever, "", headless.ExitNotLanded},
		{"the edit was rejected on the terminal", edit, headless.ApproveAsk, "2\n", headless.ExitNotLanded},
		{"a command was denied, no edit", []any{call("c1", "run_command", map[string]string{"command": "touch x"}), map[string]any{"content": "ok"}},
			headless.ApproveNever, "", headless.ExitNotLanded},
		{"the model failed", []any{map[string]any{"status": 401}}, headless.ApproveAll, "", headless.ExitFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, stderr, code := scripted(t, map[string]string{"a.txt": "a\n"}, tt.turns, headless.Options{Mode: agent.ModeExecute,
				Instruction: "change a.txt", Approve: tt.approve, Stdin: strings.NewReader(tt.stdin)})
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
		})
	}
}

// A19 (issue 25): a bad --range is a bad command line (exit code 2), not
// a failed run.
func TestHeadless_A19_BadRangeIsUsage(t *testing.T) {
	for _, r := range []string{"bogus", "3:1-2:1", "1:1-2:3x", "0:1-1:1", "1:5-1:2"} {
		if _, err := headless.ParseRange(r); err == nil {
			t.Errorf("ParseRange(%q) accepted it", r)
		}
	}
	if _, err := headless.ParseRange("4:1-10:2"); err != nil {
		t.Errorf("ParseRange(4:1-10:2): %v", err)
	}
	var out, errOut strings.Builder
	code := headless.Exec(t.Context(), &headless.Options{Mode: agent.ModePlan, Instruction: "x", Dir: t.TempDir(), Range: "bogus",
		Stdout: &out, Stderr: &errOut, Server: &lspserver.Options{}})
	if code != headless.ExitUsage || !strings.Contains(errOut.String(), `--range "bogus"`) {
		t.Errorf("exit %d, stderr %q; want %d and the range named", code, errOut.String(), headless.ExitUsage)
	}
}

// A19 (issue 25): with --json a script gets an event for each piece of
// the model's text, each tool call's start and end (with the command's
// output and exit code), each approval with its decision, and each
// warning the server sends.
func TestHeadless_A19_JSONEvents(t *testing.T) {
	_, stdout, stderr, code := scripted(t, map[string]string{"a.txt": "a\n"}, commandTurns(),
		headless.Options{Mode: agent.ModeExecute, Instruction: "run the tests; see @missing.txt", Approve: headless.ApproveAll, JSON: true})
	if code != headless.ExitDone {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	type event struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Turn     int    `json:"turn"`
		Tool     string `json:"tool"`
		Subject  string `json:"subject"`
		ExitCode *int   `json:"exitCode"`
		Output   string `json:"output"`
		Decision string `json:"decision"`
		Question string `json:"question"`
		Message  string `json:"message"`
	}
	var text strings.Builder
	var types []string
	var commands, decisions, warnings []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON event: %q", sc.Text())
		}
		types = append(types, e.Type)
		switch e.Type {
		case "text":
			text.WriteString(e.Text)
		case "tool_result":
			if e.ExitCode != nil {
				commands = append(commands, fmt.Sprintf("%s → %d: %s", e.Subject, *e.ExitCode, e.Output))
			}
		case "approval":
			decisions = append(decisions, e.Decision)
		case "warning":
			warnings = append(warnings, e.Message)
		}
	}
	if text.String() != "Let me run the tests first.Ran the tests and changed a.txt." {
		t.Errorf("the text events join to %q", text.String())
	}
	if len(commands) != 1 || !strings.HasPrefix(commands[0], testCommand+" → 3: exit code 3") ||
		!strings.Contains(commands[0], "line 1\n") || !strings.Contains(commands[0], "line 40\n[stderr]\noops\n") {
		t.Errorf("commands %q", commands)
	}
	if strings.Join(decisions, ",") != "approved,approved" {
		t.Errorf("approval decisions %v", decisions)
	}
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "missing.txt") {
		t.Errorf("no warning event for the missing @file: %q\n%s", warnings, stdout)
	}
	wantInOrder(t, strings.Join(types, " "), "text", "tool_call", "approval", "tool_result", "tool_call", "diff", "approval", "tool_result", "text", "result")
}

// A19 (issue 25): on a terminal a spinner says what the run waits for;
// every line it draws is erased before anything else is printed, so the
// text reads as without it. Without Spinner (a pipe) no such byte is
// written.
func TestHeadless_A19_Spinner(t *testing.T) {
	turns := []any{call("c1", "run_command", map[string]string{"command": "echo hi"}), map[string]any{"content": "Done."}}
	_, stdout, stderr, code := scripted(t, nil, turns, headless.Options{Mode: agent.ModeExecute, Instruction: "x", Approve: headless.ApproveAll, Spinner: true})
	if code != headless.ExitDone {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"\r\x1b[K⠋ waiting for the model 0s", " running run_command "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
	last := strings.LastIndex(stderr, "\r\x1b[K")
	if i := strings.LastIndexAny(stderr, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"); i > last {
		t.Errorf("the spinner's last line is not erased: %q", stderr)
	}
	_, stdout, stderr, _ = scripted(t, nil, turns, headless.Options{Mode: agent.ModeExecute, Instruction: "x", Approve: headless.ApproveAll})
	if strings.ContainsAny(stdout+stderr, "\r\x1b⠋") {
		t.Errorf("spinner bytes without a terminal:\n%q\n%q", stdout, stderr)
	}
}

// E17 (issue 25): Ctrl-C while the model thinks ends the run with exit
// code 1 and says "cancelled" in plain words, not "context canceled".
func TestHeadless_E17_CancelSaysCancelled(t *testing.T) {
	s, err := script.Parse([]byte(`{"delay_ms":600000}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := script.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errOut := &onWrite{match: "starting", do: cancel}
	var out strings.Builder
	code := headless.Exec(ctx, &headless.Options{Mode: agent.ModePlan, Instruction: "x", Dir: t.TempDir(),
		Stdout: &out, Stderr: errOut,
		Server: &lspserver.Options{Exec: testExec, NewModel: func() (agent.Model, error) {
			return openai.New(&openai.Options{BaseURL: srv.URL, Model: "scripted", MaxRetries: -1})
		}}})
	if ctx.Err() != context.Canceled {
		t.Fatalf("the run ended before it was cancelled: %v", ctx.Err())
	}
	got := errOut.b.String() + out.String()
	if code != headless.ExitFailed || strings.Contains(got, "context canceled") || !strings.Contains(got, "cancelled") {
		t.Errorf("exit %d, output %q; want 1 and \"cancelled\"", code, got)
	}
}

// onWrite calls do once when what was written holds match.
type onWrite struct {
	match string
	do    func()
	once  sync.Once
	b     strings.Builder
}

func (w *onWrite) Write(p []byte) (int, error) {
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.match) {
		w.once.Do(w.do)
	}
	return len(p), nil
}

// wantInOrder fails the test unless s holds each of parts, in this order.
func wantInOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("no %q (in order) in:\n%s", p, s)
			return
		}
		rest = rest[i+len(p):]
	}
}
