package lspserver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/headless"
)

// E11: what `agentls plan|review|exec` prints, pinned per scenario in
// testdata/headless/<name>.golden (rewritten by -update): the --json event
// lines (progress, log, diff, approval, diagnostics, result, error) and
// the readable text. The workspace directory reads $WORK and the session
// ID $SESSION. It runs in real time, outside synctest, so the scripted
// model is served over loopback (llmtest.NewServer).
func TestHeadless_E11_Output(t *testing.T) {
	const review = `{"tool_calls":[{"id":"f1","name":"report_finding","arguments":{"path":"a.go","line":3,"severity":"error","message":"returns 1"}}]}
{"content":"a.go:9: info: returns 2\na.go:99: gone"}`
	const confirm = `{"tool_calls":[{"id":"h1","name":"human_confirm","arguments":{"question":"Push the branch now?","text":"git push"}}]}
{"content":"ok"}`
	tests := []struct {
		name   string
		script string // "" means no model
		o      headless.Options
	}{
		{"execute_json", editScript, headless.Options{Mode: agent.ModeExecute, Instruction: "bigger numbers", File: "a.go", Approve: headless.ApproveAll, JSON: true}},
		{"execute_text", editScript, headless.Options{Mode: agent.ModeExecute, Instruction: "bigger numbers", File: "a.go", Approve: headless.ApproveAll}},
		{"execute_never_text", editScript, headless.Options{Mode: agent.ModeExecute, Instruction: "bigger numbers", File: "a.go", Approve: headless.ApproveNever}},
		{"review_json", review, headless.Options{Mode: agent.ModeReview, File: "a.go", Range: "3:1-9:5", JSON: true}},
		{"review_text", review, headless.Options{Mode: agent.ModeReview, File: "a.go"}},
		{"confirm_edit_text", confirm, headless.Options{Mode: agent.ModeExecute, Instruction: "push", Approve: headless.ApproveAsk,
			Stdin: strings.NewReader("3\ngit push --dry-run\n")}},
		{"confirm_eof_json", confirm, headless.Options{Mode: agent.ModeExecute, Instruction: "push", Approve: headless.ApproveAsk, JSON: true,
			Stdin: strings.NewReader("3\n")}},
		{"no_model_json", "", headless.Options{Mode: agent.ModePlan, Instruction: "plan", JSON: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(twoFuncs), 0o644); err != nil {
				t.Fatal(err)
			}
			o := tt.o
			o.Dir = dir
			o.Server = &lspserver.Options{}
			if tt.script != "" {
				s, err := llmtest.ParseScript([]byte(tt.script))
				if err != nil {
					t.Fatal(err)
				}
				llm := llmtest.NewServer(s)
				t.Cleanup(llm.Close)
				o.Server.NewModel = newModelFunc(llm.URL)
			}
			var stdout, stderr bytes.Buffer
			o.Stdout, o.Stderr = &stdout, &stderr
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			code := headless.Exec(ctx, &o)
			got := normalizeHeadless(dir, "exit "+string(rune('0'+code))+"\n-- stdout --\n"+stdout.String()+"-- stderr --\n"+stderr.String())
			golden := filepath.Join("testdata", "headless", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
				t.Errorf("output differs from %s (-want +got); rerun with -update if intended:\n%s", golden, diff)
			}
		})
	}
}

var headlessSession = regexp.MustCompile(`\b[0-9a-f]{12}\b`)

func normalizeHeadless(dir, out string) string {
	out = strings.ReplaceAll(out, dir, "$WORK")
	return headlessSession.ReplaceAllString(out, "$$SESSION")
}
