package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// printer writes what happens: readable text (progress and logs on stderr,
// diffs and results on stdout), or with --json one JSON event per line on
// stdout. Every text in it came from the model, the repository, a hook or
// the server: the readable text shows it through sandbox.Visible (one
// line: a path, a name) or sandbox.VisibleText (many lines: a diff, an
// answer, a message), so that no control character reaches the terminal
// raw (T22); the JSON events carry it as it is, JSON-escaped.
type printer struct {
	json bool
	w    io.Writer
	errw io.Writer
	// brief: the person at the terminal saw each question whole
	// (--approve=ask), so its echo is its first line.
	brief bool
	// explain: each tool call's outcome is followed by why it was
	// allowed, asked or denied (--explain, E21).
	explain bool
	mu      sync.Mutex // keeps lines whole; guards what follows
	// spin is the spinner on a terminal's stderr (nil: none).
	spin *spinner
	// midLine: the model's streamed text left stdout in mid-line.
	midLine bool
	// textTurn and streamed are the text streamed in the model's latest
	// turn, which the result's summary need not repeat.
	textTurn int
	streamed strings.Builder
	// lastWarning is the last warning printed.
	lastWarning string
}

// The --json events. Their fields are in alphabetical order, the order the
// events had when they were maps: scripts may compare lines.
type (
	progressEvent struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Title   string `json:"title"`
		Type    string `json:"type"`
	}
	logEvent struct {
		Level   string `json:"level"`
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	diffEvent struct {
		Diff string `json:"diff"`
		Path string `json:"path"`
		Type string `json:"type"`
	}
	// approvalEvent is a question answered: Decision is approved,
	// denied, edit (the person chose to edit the text) or edited; Answer
	// the action (or the edited text), How who decided and why.
	approvalEvent struct {
		Answer   string `json:"answer"`
		Decision string `json:"decision"`
		How      string `json:"how"`
		Question string `json:"question"`
		Type     string `json:"type"`
	}
	// warningEvent is a warning the server sent (window/logMessage or
	// window/showMessage of type Warning).
	warningEvent struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	// diagnosticsEvent carries the server's publishDiagnostics params as
	// they came.
	diagnosticsEvent struct {
		Params json.RawMessage `json:"params"`
		Type   string          `json:"type"`
	}
	// errorEvent is a failed command: the wire error's message and data.
	errorEvent struct {
		Data    json.RawMessage `json:"data"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
)

func (p *printer) event(v any) {
	b, _ := json.Marshal(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s\n", b)
}

func (p *printer) text(w io.Writer, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.breakLine()
	fmt.Fprintf(w, format, args...)
}

// breakLine, with p.mu held, makes room for a line: the spinner's is
// cleared, and a line of the model's text is ended.
func (p *printer) breakLine() {
	p.spin.clear()
	if p.midLine {
		fmt.Fprint(p.w, "\n")
		p.midLine = false
	}
}

func (p *printer) progress(kind, title, msg string) {
	if p.json {
		p.event(progressEvent{Kind: kind, Message: msg, Title: title, Type: "progress"})
		return
	}
	if title != "" {
		msg = title + ": " + msg
	}
	p.text(p.errw, "… %s\n", sandbox.VisibleText(msg))
}

// levels names message types (and diagnostic severities, which use the
// same numbers).
var levels = map[int]string{1: "error", 2: "warning", 3: "info", 4: "log"}

func (p *printer) log(typ int, msg string) {
	if p.repeated(typ, msg) {
		return
	}
	if p.json && typ == int(protocol.MessageTypeWarning) {
		p.event(warningEvent{Message: msg, Type: "warning"})
		return
	}
	if p.json {
		p.event(logEvent{Level: levels[typ], Message: msg, Type: "log"})
		return
	}
	p.text(p.errw, "[%s] %s\n", levels[typ], sandbox.VisibleText(msg))
}

// repeated reports whether msg is the warning just printed: the server
// sends a warning the user must act on both as window/logMessage and as
// window/showMessage, and one line says it.
func (p *printer) repeated(typ int, msg string) bool {
	if typ != int(protocol.MessageTypeWarning) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if msg == p.lastWarning {
		return true
	}
	p.lastWarning = msg
	return false
}

func (p *printer) diff(path, d string) {
	if p.json {
		p.event(diffEvent{Diff: d, Path: path, Type: "diff"})
		return
	}
	// T22: each line of the diff as it is, its control characters shown
	// (a carriage return or an erase-line sequence would otherwise hide
	// what the person approves).
	p.text(p.w, "\nProposed change to %s:\n%s\n", sandbox.Visible(path), sandbox.VisibleText(d))
}

// The decisions of an approval event.
const (
	decisionApproved = "approved"
	decisionDenied   = "denied"
	decisionEdit     = "edit"
	decisionEdited   = "edited"
)

// maxQuestionLines bounds the lines of a question its echo repeats.
const maxQuestionLines = 12

// approval echoes a question and its answer: in text, the question (all
// of it unless the person saw it on the terminal: the command, the
// file) and the decision; with --json an approval event.
func (p *printer) approval(question, answer, decision, how string) {
	if p.json {
		p.event(approvalEvent{Answer: answer, Decision: decision, How: how, Question: question, Type: "approval"})
		return
	}
	lines := strings.Split(strings.TrimRight(question, "\n"), "\n")
	if p.brief {
		lines = lines[:1]
	}
	if len(lines) == 1 {
		p.text(p.w, "? %s → %s\n", sandbox.Visible(lines[0]), sandbox.Visible(how))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "? %s\n", sandbox.Visible(lines[0]))
	for i, l := range lines[1:] {
		if i == maxQuestionLines {
			fmt.Fprintf(&b, "  … %d more lines\n", len(lines)-1-i)
			break
		}
		if l != "" {
			fmt.Fprintf(&b, "  %s\n", sandbox.Visible(l))
		}
	}
	fmt.Fprintf(&b, "  → %s\n", sandbox.Visible(how))
	p.text(p.w, "%s", b.String())
}

func (p *printer) diagnostics(root string, params []byte) {
	var d protocol.PublishDiagnosticsParams
	if protocol.Unmarshal(params, &d) != nil {
		return
	}
	if p.json {
		p.event(diagnosticsEvent{Params: params, Type: "diagnostics"})
		return
	}
	name := string(d.URI)
	if u, err := uri.Parse(name); err == nil {
		name = strings.TrimPrefix(strings.TrimPrefix(u.FsPath(), root), "/")
	}
	for _, x := range d.Diagnostics {
		p.text(p.w, "%s:%d: %s: %s\n", sandbox.Visible(name), x.Range.Start.Line+1, levels[int(x.Severity)], sandbox.VisibleText(messageText(x.Message)))
	}
}

// messageText is a diagnostic's message, a string or (since LSP 3.18)
// markup.
func messageText(m protocol.InlayHintTooltip) string {
	switch m := m.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return ""
}

// typed writes v, a JSON object, as one line whose first member is
// "type": kind.
func (p *printer) typed(kind string, v any) {
	b, _ := json.Marshal(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "{\"type\":%q,%s\n", kind, b[1:])
}

// Print writes the run's result.
func (p *printer) result(r *command.Result) {
	if p.json {
		p.typed("result", r)
		return
	}
	p.text(p.w, "\n%s (session %s, run %s)\n", sandbox.Visible(string(r.Status)), sandbox.Visible(r.SessionID), sandbox.Visible(r.RunID))
	if r.Summary != "" && !p.streamedSummary(r.Summary) {
		p.text(p.w, "%s\n", sandbox.VisibleText(r.Summary))
	}
	for _, f := range r.Findings {
		p.text(p.w, "  %s:%d: %s: %s\n", sandbox.Visible(f.Path), f.Line, sandbox.Visible(string(f.Severity)), sandbox.VisibleText(f.Message))
	}
	p.text(p.w, "%s\n", editsLine(&r.Edits))
}

// editsLine is the run's one line of edit counts, hunk by hunk, with the
// files created and deleted (E18), as the editors show it.
func editsLine(e *command.EditCounts) string {
	s := fmt.Sprintf("edits: %d proposed, %d applied, %d rejected", e.Proposed, e.Applied, e.Rejected)
	if e.Stale > 0 {
		s += fmt.Sprintf(", %d stale (the file changed)", e.Stale)
	}
	for _, files := range []struct {
		what  string
		paths []string
	}{{"created", e.Created}, {"deleted", e.Deleted}} {
		if len(files.paths) > 0 {
			names := make([]string, len(files.paths))
			for i, p := range files.paths {
				names[i] = sandbox.Visible(p)
			}
			s += fmt.Sprintf("; %s: %s", files.what, strings.Join(names, ", "))
		}
	}
	return s
}

// deleted says a file was deleted (a revert of a run that created it).
func (p *printer) deleted(path string) {
	if p.json {
		p.event(deletedEvent{Path: path, Type: "deleted"})
		return
	}
	p.text(p.w, "\nDeleted %s\n", sandbox.Visible(path))
}

// deletedEvent is a file deleted.
type deletedEvent struct {
	Path string `json:"path"`
	Type string `json:"type"`
}
