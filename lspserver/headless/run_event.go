package headless

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// The run view of the terminal (E16, E18, A19; see the package doc): of
// the agentls/runEvent notifications the client prints each tool call's
// outcome, as the editors' run views do. The model's text is printed
// once, as the result's summary.

// toolResultEvent is the --json event of a tool call's outcome. A
// command's landed files are in Files (never null): path is
// workspace-relative with slashes, change is "added", "changed" or
// "deleted". ExitCode is null for a tool that runs no command; Code and
// Message say why a call failed or was refused (OK false).
type toolResultEvent struct {
	Code     string                `json:"code"`
	Depth    int                   `json:"depth"`
	ExitCode *int                  `json:"exitCode"`
	Files    []command.CommandFile `json:"files"`
	Message  string                `json:"message"`
	OK       bool                  `json:"ok"`
	Output   string                `json:"output"`
	Subject  string                `json:"subject"`
	Tool     string                `json:"tool"`
	Turn     int                   `json:"turn"`
	Type     string                `json:"type"`
}

// runEvent prints the events of agentls/runEvent the terminal shows.
func (c *client) runEvent(params json.RawMessage) {
	var e command.RunEvent
	if json.Unmarshal(params, &e) != nil || e.Kind != command.RunToolResult {
		return
	}
	c.out.toolResult(&e)
}

func (p *printer) toolResult(e *command.RunEvent) {
	if p.json {
		files := e.Files
		if files == nil {
			files = []command.CommandFile{}
		}
		p.event(toolResultEvent{Code: e.Code, Depth: e.Depth, ExitCode: e.ExitCode, Files: files, Message: e.Message,
			OK: e.OK, Output: e.Output, Subject: e.Subject, Tool: e.Tool, Turn: e.Turn, Type: "tool_result"})
		return
	}
	var b strings.Builder
	for _, l := range toolResultLines(e) {
		b.WriteString(l + "\n")
	}
	p.text(p.w, "%s", b.String())
}

// maxFileLines bounds the files listed under one command in text; the
// rest are counted. --json lists them all.
const maxFileLines = 100

// maxOutputLines is how many non-empty lines of a command's output head
// the text shows, as the editors do.
const maxOutputLines = 6

// toolResultLines renders a tool call's outcome as the editors' run views
// do: the outcome, then one line per landed file (+ added, ~ changed,
// - deleted), then for a command the head of its output (without the
// [files …] lines the list above repeats). Text from the model, the
// command and the repository has its control characters made visible
// (T22).
func toolResultLines(e *command.RunEvent) []string {
	sub := ""
	if e.Depth > 0 {
		sub = "  [sub-agent] "
	}
	subject := ""
	if e.Subject != "" {
		subject = " " + sandbox.Visible(e.Subject)
	}
	tool := sandbox.Visible(e.Tool)
	var head string
	switch {
	case !e.OK:
		code := e.Code
		if code == "" {
			code = "error"
		}
		msg := ""
		if e.Message != "" {
			msg = " — " + sandbox.Visible(e.Message)
		}
		head = fmt.Sprintf("  ✗ %s%s refused: %s%s", tool, subject, sandbox.Visible(code), msg)
	case e.ExitCode != nil:
		mark := "✓"
		if *e.ExitCode != 0 {
			mark = "✗"
		}
		head = fmt.Sprintf("  %s %s%s: exit %d", mark, tool, subject, *e.ExitCode)
	default:
		head = fmt.Sprintf("  ✓ %s%s", tool, subject)
	}
	lines := []string{sub + head}
	lines = append(lines, fileLines(sub, e.Files)...)
	if e.ExitCode == nil {
		return lines // the output of a command only; --json has every tool's
	}
	for i, l := range outputLines(e.Output, len(e.Files) > 0) {
		if i == maxOutputLines {
			break
		}
		lines = append(lines, sub+"    │ "+sandbox.VisibleText(l))
	}
	return lines
}

// fileLines lists a command's landed files, at most maxFileLines.
func fileLines(sub string, files []command.CommandFile) []string {
	var out []string
	for i, f := range files {
		if i == maxFileLines {
			out = append(out, fmt.Sprintf("%s    … and %d more files", sub, len(files)-maxFileLines))
			break
		}
		out = append(out, fmt.Sprintf("%s    %s %s %s", sub, changeMark(f.Change), sandbox.Visible(f.Change), sandbox.Visible(f.Path)))
	}
	return out
}

// changeMark is the sign of a file's change: + added, ~ changed, - deleted.
func changeMark(change string) string {
	switch change {
	case "added":
		return "+"
	case "deleted":
		return "-"
	}
	return "~"
}

// filesLine is a line of the model's account of what landed, which the
// list of files replaces in the views.
var filesLine = regexp.MustCompile(`^\[files (added|changed|deleted): `)

// outputLines returns the non-empty lines of a result's head; with
// listed, without the [files …] lines that come before the command's own
// output (a command printing such a line keeps it).
func outputLines(output string, listed bool) []string {
	var out []string
	ownOutput := false
	for _, l := range strings.Split(output, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l == "[stdout]" || l == "[stderr]" {
			ownOutput = true
		}
		if listed && !ownOutput && filesLine.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}
