package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"go.lsp.dev/uri"
)

// printer writes what happens: readable text (progress and logs on stderr,
// diffs and results on stdout), or with --json one JSON event per line on
// stdout.
type printer struct {
	json bool
	w    io.Writer
	errw io.Writer
	mu   sync.Mutex // keeps lines whole
}

func (p *printer) event(v map[string]any) {
	b, _ := json.Marshal(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s\n", b)
}

func (p *printer) text(w io.Writer, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(w, format, args...)
}

func (p *printer) progress(kind, title, msg string) {
	if p.json {
		p.event(map[string]any{"type": "progress", "kind": kind, "title": title, "message": msg})
		return
	}
	if title != "" {
		msg = title + ": " + msg
	}
	p.text(p.errw, "… %s\n", msg)
}

var levels = map[int]string{1: "error", 2: "warning", 3: "info", 4: "log"}

func (p *printer) log(typ int, msg string) {
	if p.json {
		p.event(map[string]any{"type": "log", "level": levels[typ], "message": msg})
		return
	}
	p.text(p.errw, "[%s] %s\n", levels[typ], msg)
}

func (p *printer) diff(path, d string) {
	if p.json {
		p.event(map[string]any{"type": "diff", "path": path, "diff": d})
		return
	}
	p.text(p.w, "\nProposed change to %s:\n%s\n", path, d)
}

func (p *printer) approval(question, answer, how string) {
	if p.json {
		p.event(map[string]any{"type": "approval", "question": question, "answer": answer, "how": how})
		return
	}
	q := question
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		q = q[:i]
	}
	p.text(p.w, "? %s → %s\n", q, how)
}

func (p *printer) diagnostics(root string, params []byte) {
	var d struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Range struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
			Severity int    `json:"severity"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
	}
	if json.Unmarshal(params, &d) != nil {
		return
	}
	if p.json {
		var raw json.RawMessage = params
		p.event(map[string]any{"type": "diagnostics", "params": raw})
		return
	}
	name := d.URI
	if u, err := uri.Parse(d.URI); err == nil {
		name = strings.TrimPrefix(strings.TrimPrefix(u.FsPath(), root), "/")
	}
	for _, x := range d.Diagnostics {
		p.text(p.w, "%s:%d: %s: %s\n", name, x.Range.Start.Line+1, levels[x.Severity], x.Message)
	}
}

// Print writes the run's result.
func (p *printer) result(r *Result) {
	if p.json {
		b, _ := json.Marshal(r)
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.w, "{\"type\":\"result\",%s\n", b[1:])
		return
	}
	p.text(p.w, "\n%s (%s)\n", r.Status, r.SessionID)
	if r.Summary != "" {
		p.text(p.w, "%s\n", r.Summary)
	}
	for _, f := range r.Findings {
		p.text(p.w, "  %s:%d: %s: %s\n", f.Path, f.Line, f.Severity, f.Message)
	}
	p.text(p.w, "edits: %d proposed, %d applied, %d rejected\n", r.Edits.Proposed, r.Edits.Applied, r.Edits.Rejected)
}
