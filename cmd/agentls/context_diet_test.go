package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/sandbox/exec"
)

// Issue 16, "Context diet": the first model request of a run (system
// prompt + tools + task) stays within firstRequestBudget bytes in every
// mode, headless and serve, in the replay-like workspace (one Go file, no
// SQLite file, the default policy); each tool turn adds at most
// turnEnvelopeBudget bytes beyond its result.
const (
	firstRequestBudget = 4000
	turnEnvelopeBudget = 650
)

// dietWorkspace is the replay's workspace: one Go file of 200 lines.
func dietWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := "package main\n\nfunc main() {\n" + strings.Repeat("\tprintln(\"line\")\n", 200) + "}\n"
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))
	return dir
}

// dietEnv is the environment of a run against srv with no user config
// (the default policy), unless dietPolicy names a policy file.
func dietEnv(t *testing.T, srv *llmtest.Server) func(string) string {
	home := t.TempDir()
	env := map[string]string{"AGENTLS_POLICY": dietPolicy,
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state"),
		"OPENAI_BASE_URL": srv.URL, "AGENTLS_MODEL": "diet", "OPENAI_API_KEY": "sk-test-not-a-secret",
	}
	return func(k string) string { return env[k] }
}

// dietPolicy is the user policy file of the runs; "" means the default.
var dietPolicy string

// dietHeadless runs `agentls CMD ARGS… go` in-process in dir against a
// scripted model and returns the model's request bodies.
func dietHeadless(t *testing.T, dir, script string, args ...string) []json.RawMessage {
	t.Helper()
	sc, err := llmtest.ParseScript([]byte(script))
	must(t, err)
	srv := llmtest.NewServer(sc)
	defer srv.Close()
	t.Chdir(dir)
	var out bytes.Buffer
	if code := run(context.Background(), append(args, "go"), strings.NewReader(""), &out, &out, dietEnv(t, srv)); code != 0 {
		t.Fatalf("agentls %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
	}
	return srv.Requests()
}

// dietServe runs one command through `serve`'s wiring and a client that
// answers questions (window.showMessage declared) and returns the model's
// request bodies.
func dietServe(t *testing.T, dir, script, cmd string) []json.RawMessage {
	t.Helper()
	sc, err := llmtest.ParseScript([]byte(script))
	must(t, err)
	srv := llmtest.NewServer(sc)
	defer srv.Close()
	getenv := dietEnv(t, srv)
	user, err := loadUserConfig(getenv)
	must(t, err)
	opts := serverOptions(user, getenv, slog.New(slog.DiscardHandler), "editor")
	procs := exec.New(nil)
	defer procs.Close()
	opts.Exec = procs
	c := lsptest.New(t, &lsptest.Options{Server: opts})
	caps := map[string]any{
		"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}},
		"window":    map[string]any{"showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}}},
	}
	if _, err := c.Initialize(context.Background(), lsptest.InitializeParams(dir, caps)); err != nil {
		t.Fatal(err)
	}
	res, err := c.ExecuteCommand(context.Background(), cmd, map[string]any{"uri": lsptest.FileURI(filepath.Join(dir, "main.go")), "instruction": "go"})
	if err != nil || res.Status != "done" {
		t.Fatalf("%s: %v %+v", cmd, err, res)
	}
	return srv.Requests()
}

// wireRequest is the part of a chat-completions request the diet measures.
type wireRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

// toolBytes returns each offered tool's bytes as sent (name, description
// and schema in the function wrapper) and their total.
func toolBytes(t *testing.T, body []byte) (map[string]int, []string, int) {
	t.Helper()
	var r wireRequest
	must(t, json.Unmarshal(body, &r))
	sizes := map[string]int{}
	var names []string
	total := 0
	for _, raw := range r.Tools {
		var tl struct {
			Function struct{ Name string } `json:"function"`
		}
		must(t, json.Unmarshal(raw, &tl))
		var b bytes.Buffer
		must(t, json.Compact(&b, raw))
		sizes[tl.Function.Name] = b.Len()
		names = append(names, tl.Function.Name)
		total += b.Len()
	}
	return sizes, names, total
}

// TestContextDiet_I16_FirstRequestBudget measures the first model request
// of every mode, headless (--approve=never, the replay's setting, and
// --approve=ask) and through serve with an editor that answers questions,
// prints each tool's bytes, and holds the first request to the budget of
// issue 16.
func TestContextDiet_I16_FirstRequestBudget(t *testing.T) {
	const done = `{"content":"done"}` + "\n"
	cases := []struct {
		name string
		run  func(t *testing.T, dir string) []json.RawMessage
	}{}
	for _, m := range []string{"plan", "review", "exec"} {
		for _, ap := range []string{"never", "ask"} {
			cases = append(cases, struct {
				name string
				run  func(t *testing.T, dir string) []json.RawMessage
			}{"headless/" + m + "/approve=" + ap, func(t *testing.T, dir string) []json.RawMessage {
				return dietHeadless(t, dir, done, m, "--approve="+ap, "--file", "main.go")
			}})
		}
	}
	for _, cmd := range []string{command.Plan, command.Review, command.Execute} {
		cases = append(cases, struct {
			name string
			run  func(t *testing.T, dir string) []json.RawMessage
		}{"serve/" + strings.TrimPrefix(cmd, "agentls."), func(t *testing.T, dir string) []json.RawMessage {
			return dietServe(t, dir, done, cmd)
		}})
	}
	// For the report only, not the budget: the same execute run in a
	// workspace with a SQLite file, so sql_query is offered too.
	cases = append(cases, struct {
		name string
		run  func(t *testing.T, dir string) []json.RawMessage
	}{"serve/execute+sqlite (info)", func(t *testing.T, dir string) []json.RawMessage {
		must(t, os.WriteFile(filepath.Join(dir, "app.db"), []byte("SQLite format 3\x00"), 0o644))
		return dietServe(t, dir, done, command.Execute)
	}})
	cases = append(cases, struct {
		name string
		run  func(t *testing.T, dir string) []json.RawMessage
	}{"serve/execute+sqlite+http (info)", func(t *testing.T, dir string) []json.RawMessage {
		must(t, os.WriteFile(filepath.Join(dir, "app.db"), []byte("SQLite format 3\x00"), 0o644))
		dietPolicy = filepath.Join(t.TempDir(), "policy.json")
		defer func() { dietPolicy = "" }()
		must(t, os.WriteFile(dietPolicy, []byte(`{"http": {"allow": ["https://pkg.go.dev"]}}`), 0o644))
		return dietServe(t, dir, done, command.Execute)
	}})
	var report strings.Builder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs := tc.run(t, dietWorkspace(t))
			if len(reqs) == 0 {
				t.Fatal("no model request")
			}
			first := reqs[0]
			sizes, names, total := toolBytes(t, first)
			var r wireRequest
			must(t, json.Unmarshal(first, &r))
			fmt.Fprintf(&report, "%-28s first request %5d bytes, tools %5d:", tc.name, len(first), total)
			for _, n := range names {
				fmt.Fprintf(&report, " %s=%d", n, sizes[n])
			}
			for _, m := range r.Messages {
				fmt.Fprintf(&report, " [%s %d]", m.Role, len(m.Content))
			}
			report.WriteString("\n")
			if len(first) > firstRequestBudget && !strings.HasSuffix(tc.name, "(info)") {
				t.Errorf("issue 16: first request has %d bytes, budget %d", len(first), firstRequestBudget)
			}
		})
	}
	t.Log("\n" + report.String())
}

// TestContextDiet_I16_GrowthPerTurn: each tool turn (read_file,
// run_command, edit_file, list_dir) adds to the next request at most
// turnEnvelopeBudget bytes beyond its result: the assistant's tool_call
// message and the tool message around the result. The result counts as
// sent: its content as a JSON string.
func TestContextDiet_I16_GrowthPerTurn(t *testing.T) {
	calls := []struct{ name, args string }{
		{"read_file", `{"path":"main.go"}`},
		{"run_command", `{"command":"ls"}`},
		{"edit_file", `{"path":"main.go","edits":[{"old_text":"func main() {","new_text":"func main() { // edited"}]}`},
		{"list_dir", `{"path":"."}`},
	}
	var script strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&script, `{"tool_calls":[{"name":%q,"arguments":%s}]}`+"\n", c.name, c.args)
	}
	script.WriteString(`{"content":"done"}` + "\n")
	reqs := dietHeadless(t, dietWorkspace(t), script.String(), "exec", "--approve=all", "--file", "main.go")
	if len(reqs) != len(calls)+1 {
		t.Fatalf("model requests = %d, want %d", len(reqs), len(calls)+1)
	}
	var report strings.Builder
	for k, c := range calls {
		var next wireRequest
		must(t, json.Unmarshal(reqs[k+1], &next))
		last := next.Messages[len(next.Messages)-1]
		if last.Role != "tool" {
			t.Fatalf("turn %d: last message is %s, want the tool result", k+1, last.Role)
		}
		result := len(last.Content)
		growth := len(reqs[k+1]) - len(reqs[k])
		envelope := growth - result
		fmt.Fprintf(&report, "%-12s request %d→%d: +%d bytes, result %d, envelope %d\n", c.name, k+1, k+2, growth, result, envelope)
		if envelope > turnEnvelopeBudget {
			t.Errorf("issue 16: a %s turn adds %d bytes beyond its result, budget %d", c.name, envelope, turnEnvelopeBudget)
		}
		if c.name == "edit_file" && !strings.Contains(string(last.Content), "applied") {
			t.Errorf("edit_file result %s: the edit did not land", last.Content)
		}
	}
	t.Log("\n" + report.String())
}
