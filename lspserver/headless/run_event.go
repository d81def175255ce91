package headless

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// The run view of the terminal (E16, E18, A19; see the package doc): of
// the agentls/runEvent notifications the client prints the model's text
// as it streams and each tool call's outcome, as the editors' run views
// do, and shows on the spinner what the run waits for. With --json each
// is an event: text, tool_call, tool_result.

// toolResultEvent is the --json event of a tool call's outcome. A
// command's landed files are in Files (never null): path is
// workspace-relative with slashes, change is "added", "changed" or
// "deleted". ExitCode is null for a tool that runs no command; Code and
// Message say why a call failed or was refused (OK false).
type toolResultEvent struct {
	Code     string `json:"code"`
	Depth    int    `json:"depth"`
	ExitCode *int   `json:"exitCode"`
	// Explain is why the call was allowed, asked or denied (--explain
	// only; E21).
	Explain *command.StepExplanation `json:"explain,omitempty"`
	Files   []command.CommandFile    `json:"files"`
	Message string                   `json:"message"`
	OK      bool                     `json:"ok"`
	Output  string                   `json:"output"`
	Subject string                   `json:"subject"`
	Tool    string                   `json:"tool"`
	Turn    int                      `json:"turn"`
	Type    string                   `json:"type"`
}

// toolCallEvent is the --json event of a tool call about to be checked
// and run; its tool_result follows.
type toolCallEvent struct {
	Depth int    `json:"depth"`
	Tool  string `json:"tool"`
	Turn  int    `json:"turn"`
	Type  string `json:"type"`
}

// textEvent is the --json event of a piece of the model's answer, as it
// streams; the pieces of a turn joined are its text.
type textEvent struct {
	Text string `json:"text"`
	Turn int    `json:"turn"`
	Type string `json:"type"`
}

// runEvent prints the events of agentls/runEvent. Log events are not:
// the same messages come as window/logMessage.
func (c *client) runEvent(params json.RawMessage) {
	var e command.RunEvent
	if json.Unmarshal(params, &e) != nil {
		return
	}
	switch e.Kind {
	case command.RunStarted:
		c.out.waitFor("waiting for the model")
	case command.RunText:
		c.out.modelText(e.Turn, e.Text)
	case command.RunToolCall:
		c.out.toolCall(&e)
	case command.RunToolResult:
		c.out.toolResult(&e)
		c.out.waitFor("waiting for the model")
	case command.RunEnded:
		c.out.waitFor("")
	}
}

// modelText prints a piece of the model's answer as it comes: the
// spinner gives way to it.
func (p *printer) modelText(turn int, text string) {
	if p.json {
		p.event(textEvent{Text: text, Turn: turn, Type: "text"})
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spin.set("")
	if turn != p.textTurn {
		p.textTurn = turn
		p.streamed.Reset()
	}
	p.streamed.WriteString(text)
	out := sandbox.VisibleText(text)
	fmt.Fprint(p.w, out)
	if out != "" {
		p.midLine = !strings.HasSuffix(out, "\n")
	}
}

// streamedSummary reports whether the model's last streamed turn was
// summary: the text printed it already.
func (p *printer) streamedSummary(summary string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.TrimSpace(p.streamed.String()) == strings.TrimSpace(summary)
}

// toolCall is a tool call starting: an event, or the spinner's label.
func (p *printer) toolCall(e *command.RunEvent) {
	if p.json {
		p.event(toolCallEvent{Depth: e.Depth, Tool: e.Tool, Turn: e.Turn, Type: "tool_call"})
		return
	}
	label := "running " + sandbox.Visible(e.Tool)
	if e.Depth > 0 {
		label = "sub-agent: " + label
	}
	p.waitFor(label)
}

func (p *printer) toolResult(e *command.RunEvent) {
	if p.json {
		files := e.Files
		if files == nil {
			files = []command.CommandFile{}
		}
		ev := toolResultEvent{Code: e.Code, Depth: e.Depth, ExitCode: e.ExitCode, Files: files, Message: e.Message,
			OK: e.OK, Output: e.Output, Subject: e.Subject, Tool: e.Tool, Turn: e.Turn, Type: "tool_result"}
		if p.explain {
			ev.Explain = e.Explain
		}
		p.event(ev)
		return
	}
	var b strings.Builder
	for _, l := range toolResultLines(e) {
		b.WriteString(l + "\n")
	}
	if p.explain {
		for _, l := range explainLines(e) {
			b.WriteString(l + "\n")
		}
	}
	p.text(p.w, "%s", b.String())
}

// maxFileLines bounds the files listed under one command in text; the
// rest are counted. --json lists them all.
const maxFileLines = 100

// outputEndLines is how many non-empty lines of each end of a command's
// output the text shows: the server's own bound (the head and the tail
// of the result, with a line counting those left out), kept here too.
const outputEndLines = 8

// toolResultLines renders a tool call's outcome as the editors' run views
// do: the outcome, then one line per landed file (+ added, ~ changed,
// - deleted), then for a command the head and tail of its output (without the
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
	for _, l := range outputEnds(outputLines(e.Output, len(e.Files) > 0)) {
		lines = append(lines, sub+"    │ "+sandbox.VisibleText(l))
	}
	return lines
}

// outputEnds is the first and the last outputEndLines of lines, with a
// line counting those between.
func outputEnds(lines []string) []string {
	if len(lines) <= 2*outputEndLines+1 {
		return lines
	}
	out := append([]string{}, lines[:outputEndLines]...)
	out = append(out, fmt.Sprintf("… %d more lines", len(lines)-2*outputEndLines))
	return append(out, lines[len(lines)-outputEndLines:]...)
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

// explainLines are a tool call's explanation (--explain, E21) as
// `agentls why` prints it ([tools.Explanation.Lines]), under its outcome.
func explainLines(e *command.RunEvent) []string {
	sub := ""
	if e.Depth > 0 {
		sub = "  [sub-agent] "
	}
	if e.Explain == nil {
		return []string{sub + "    why: not recorded (the call never reached the gateway)"}
	}
	var x tools.Explanation
	raw, err := json.Marshal(e.Explain)
	if err != nil || json.Unmarshal(raw, &x) != nil {
		return nil
	}
	var out []string
	for _, l := range x.Lines() {
		out = append(out, sub+"    "+l)
	}
	return out
}
