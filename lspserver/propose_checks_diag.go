package lspserver

import (
	"context"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// publish sends the checks' problems as diagnostics next to the review's
// findings of each document: on the proposed file at the lines of its
// current text the problem's proposed lines come from, on other files at
// their own lines.
func (pc *proposalChecks) publish(ctx context.Context, res *proposalcheck.Result) {
	if res == nil {
		return
	}
	s, pr := pc.p.s, pc.pr
	byURI := map[uri.URI][]trackedDiag{}
	for _, pb := range res.Problems() {
		text, line := "", pb.Line-1
		if pb.Path == pr.ch.Path {
			text, line = pr.v.text, oldLine(pr.v.text, string(pr.ch.New), pr.hs, pb.Line-1)
		} else if b, err := pc.p.ws.ReadFile(ctx, pb.Path); err == nil {
			text = string(b)
		} else {
			continue
		}
		u := s.uriFor(pb.Path)
		msg := "in the proposed change: line " + strconv.Itoa(pb.Line) + ": " + pb.Message
		byURI[u] = append(byURI[u], newTracked(text, line, line, protocol.Diagnostic{
			Severity: protocol.DiagnosticSeverityError,
			Source:   protocol.NewOptional(checksSource),
			Message:  protocol.String(sandbox.Visible(msg)),
		}))
	}
	ds := &s.diags
	ds.mu.Lock()
	defer ds.mu.Unlock()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for u, tds := range byURI {
		s.publishDiagnostics(ctx, u, append(append([]trackedDiag(nil), ds.byURI[u]...), tds...))
		pc.published = append(pc.published, u)
	}
}

// clear publishes again only the review's findings of each document that
// held checks diagnostics.
func (pc *proposalChecks) clear(ctx context.Context) {
	s := pc.p.s
	ds := &s.diags
	ds.mu.Lock()
	defer ds.mu.Unlock()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, u := range pc.published {
		s.publishDiagnostics(ctx, u, ds.byURI[u])
	}
	pc.published = nil
}

// oldLine maps a 0-based line of the proposed text to the line of the
// current text it comes from: through unchanged text line for line, and a
// line inside a hunk's replacement to the hunk's first line.
func oldLine(old, proposed string, hs []hunk, line int) int {
	at := lineStart(proposed, line)
	prevOld, newOff := 0, 0
	oldAt := -1
	for _, h := range hs {
		newStart := newOff + (h.Start - prevOld)
		newEnd := newStart + len(h.Repl)
		if at < newStart {
			oldAt = h.Start - (newStart - at)
			break
		}
		if at < newEnd || (at == newEnd && len(h.Repl) == 0) {
			oldAt = h.Start
			break
		}
		prevOld, newOff = h.End, newEnd
	}
	if oldAt < 0 {
		oldAt = min(prevOld+(at-newOff), len(old))
	}
	// An insertion at the end is shown on the last line there is.
	return min(strings.Count(old[:max(oldAt, 0)], "\n"), strings.Count(strings.TrimSuffix(old, "\n"), "\n"))
}

// lineStart is the byte offset of 0-based line n of s (len(s) past its end).
func lineStart(s string, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}
