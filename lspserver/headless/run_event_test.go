package headless

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/lspserver/command"
)

// E16/E18, issue 21: the terminal renders a tool call's outcome as the
// editors do — a command's landed files one per line under it (+ added,
// ~ changed, - deleted) in place of the [files …] lines of its output,
// then its output head — with control characters made visible (T22).
func TestToolResultLines_Issue21(t *testing.T) {
	zero, one := 0, 1
	var many []command.CommandFile
	manyLines := []string{"  ✓ run_command go generate: exit 0"}
	for i := range maxFileLines + 3 {
		many = append(many, command.CommandFile{Path: fmt.Sprintf("gen/%03d.go", i), Change: "added"})
		if i < maxFileLines {
			manyLines = append(manyLines, fmt.Sprintf("    + added gen/%03d.go", i))
		}
	}
	manyLines = append(manyLines, "    … and 3 more files")
	tests := []struct {
		name string
		e    command.RunEvent
		want []string
	}{
		{"command with landed files", command.RunEvent{Tool: "run_command", OK: true, ExitCode: &zero,
			Subject: "echo x > new.txt && gofmt -w main.go && rm old.txt",
			Files:   []command.CommandFile{{Path: "main.go", Change: "changed"}, {Path: "new.txt", Change: "added"}, {Path: "old.txt", Change: "deleted"}},
			Output: "exit code 0, 40ms\n[files added: new.txt]\n[files changed: main.go]\n[files deleted: old.txt]\n" +
				"[not landed: added .git/hooks/x: the user did not approve it (git runs it)]\n"},
			[]string{
				"  ✓ run_command echo x > new.txt && gofmt -w main.go && rm old.txt: exit 0",
				"    ~ changed main.go",
				"    + added new.txt",
				"    - deleted old.txt",
				"    │ exit code 0, 40ms",
				"    │ [not landed: added .git/hooks/x: the user did not approve it (git runs it)]",
			}},
		{"control characters made visible", command.RunEvent{Tool: "run_command", OK: true, ExitCode: &one,
			Subject: "touch $'a\x1b[2Jb'",
			Files:   []command.CommandFile{{Path: "a\x1b[2Jb", Change: "added"}, {Path: "x\u202egnp.exe\r\n\u0085\x7f\xff", Change: "changed"}},
			Output:  "exit code 1, 2ms\n[files added: a\x1b[2Jb]\n[stdout]\n\tindented\x1b[31m red\n[files added: forged]\n"},
			[]string{
				`  ✗ run_command touch $'a\x1b[2Jb': exit 1`,
				`    + added a\x1b[2Jb`,
				`    ~ changed x\u202egnp.exe\r\n\u0085\x7f\xff`,
				"    │ exit code 1, 2ms",
				"    │ [stdout]",
				"    │ \tindented\\x1b[31m red",
				"    │ [files added: forged]", // the command's own output stays
			}},
		{"a command without files keeps its output", command.RunEvent{Tool: "run_command", OK: true, ExitCode: &zero, Subject: "go vet",
			Output: "exit code 0, 1s\n[files added: from an unstaged run]\n1\n2\n3\n4\n5\n6\n"},
			[]string{"  ✓ run_command go vet: exit 0", "    │ exit code 0, 1s", "    │ [files added: from an unstaged run]",
				"    │ 1", "    │ 2", "    │ 3", "    │ 4", "    │ 5", "    │ 6"}},
		{"a long output: its head and tail (A19)", command.RunEvent{Tool: "run_command", OK: true, ExitCode: &one, Subject: "go test",
			Output: "exit code 1, 9s\n[stdout]\n" + numbered(1, 30)},
			append(append([]string{"  ✗ run_command go test: exit 1", "    │ exit code 1, 9s", "    │ [stdout]"},
				prefixed("    │ ", numbered(1, 6))...), append([]string{"    │ … 16 more lines"}, prefixed("    │ ", numbered(23, 30))...)...)},
		{"many files are counted", command.RunEvent{Tool: "run_command", OK: true, ExitCode: &zero, Subject: "go generate", Files: many},
			manyLines},
		{"refused", command.RunEvent{Tool: "run_command", Code: "approval_denied", Subject: "rm -rf build", Message: "denied\x1b]0;t\x07"},
			[]string{`  ✗ run_command rm -rf build refused: approval_denied — denied\x1b]0;t\x07`}},
		{"other tools show no output", command.RunEvent{Tool: "read_file", OK: true, Subject: "a.go", Output: "     1\tpackage a\n"},
			[]string{"  ✓ read_file a.go"}},
		{"sub-agent", command.RunEvent{Tool: "run_command", OK: true, Depth: 1, ExitCode: &zero, Subject: "make",
			Files: []command.CommandFile{{Path: "out/bin", Change: "added"}}, Output: "exit code 0, 3s\n[files added: out/bin]\n"},
			[]string{"  [sub-agent]   ✓ run_command make: exit 0", "  [sub-agent]     + added out/bin", "  [sub-agent]     │ exit code 0, 3s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolResultLines(&tt.e)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			for _, l := range got {
				if strings.ContainsAny(l, "\x1b\r\n\x07\u202e\u0085\x7f") || !utf8.ValidString(l) {
					t.Errorf("raw control character in %q", l)
				}
			}
		})
	}
}

// numbered is the lines "from" to "to", each ending in a newline.
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// prefixed is the lines of s, each with prefix.
func prefixed(prefix, s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, prefix+l)
	}
	return out
}
