package headless_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/headless"
)

// Issue 28, headless: at the hunk prompt "n: reason" rejects a hunk and
// tells the model why, "e" opens $EDITOR on the hunk's proposed text and
// applies what the user saved; the model is told the user changed its
// proposal (user_change), not that the file went stale.
func TestHeadless_Issue28_HunkReasonAndEdit(t *testing.T) {
	bin := t.TempDir()
	editor := filepath.Join(bin, "ed.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/Hi, /Hey there, /' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
	main := "package main\n\nimport \"fmt\"\n\nfunc greet(name string) string {\n\treturn \"hello, \" + name\n}\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n"
	o := headless.Options{Mode: agent.ModeExecute, Instruction: "greet Earth", Approve: headless.ApproveAsk, JSON: true,
		Stdin: strings.NewReader("e\nn: keep the world: the README shows it\n")}
	dir, stdout, stderr, _ := scripted(t, map[string]string{"go.mod": "module example.com/g\n\ngo 1.22\n", "main.go": main}, []any{
		map[string]any{"tool_calls": []map[string]any{{"id": "h1", "name": "edit_file", "arguments": map[string]any{"path": "main.go",
			"edits": []map[string]string{{"old_text": `"hello, "`, "new_text": `"Hi, "`}, {"old_text": `greet("world")`, "new_text": `greet("Earth")`}}}}}},
		map[string]any{"content": "Noted."},
	}, o)
	got, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil || !strings.Contains(string(got), `"Hey there, "`) || !strings.Contains(string(got), `greet("world")`) {
		t.Fatalf("main.go = %q (%v); want the user's text and hunk 2 left out\nstderr:\n%s", got, err, stderr)
	}
	for _, want := range []string{`user_reason`, `keep the world: the README shows it`, `the user changed your proposal`, `Hey there`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
}
