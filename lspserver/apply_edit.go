package lspserver

import (
	"fmt"
	"path"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/tools"
)

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

type lspPos struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type textEdit struct {
	Range        lspRange `json:"range"`
	NewText      string   `json:"newText"`
	AnnotationID string   `json:"annotationId,omitempty"`
}

type changeAnnotation struct {
	Label             string `json:"label"`
	NeedsConfirmation bool   `json:"needsConfirmation"`
	Description       string `json:"description,omitempty"`
}

func rangeOf(text string, start, end int) lspRange {
	s, e := position(text, start), position(text, end)
	return lspRange{lspPos{s.Line, s.Character}, lspPos{e.Line, e.Character}}
}

// buildEdit makes the workspace/applyEdit params for a change: versioned
// document edits with one annotated edit per hunk where the client supports
// them (E6), plain changes otherwise.
func buildEdit(caps clientCaps, u uri.URI, ch *tools.FileChange, version *int32, cur string, hs []hunk, confirm bool) map[string]any {
	edits := make([]textEdit, 0, len(hs))
	annotations := map[string]changeAnnotation{}
	for i, h := range hs {
		e := textEdit{Range: rangeOf(cur, h.start, h.end), NewText: h.repl}
		if caps.annotations && caps.documentChanges {
			id := fmt.Sprintf("agentls.%d", i)
			e.AnnotationID = id
			annotations[id] = changeAnnotation{
				Label:             fmt.Sprintf("%s: %s lines %s", ch.Tool, path.Base(ch.Path), h.lines),
				NeedsConfirmation: confirm,
				Description:       fmt.Sprintf("agentls proposes hunk %d of %d in %s", i+1, len(hs), ch.Path),
			}
		}
		edits = append(edits, e)
	}
	edit := map[string]any{}
	if caps.documentChanges {
		var changes []any
		if ch.Create {
			changes = append(changes, map[string]any{"kind": "create", "uri": u.String(),
				"options": map[string]bool{"overwrite": false, "ignoreIfExists": false}})
			version = nil
		}
		changes = append(changes, map[string]any{
			"textDocument": map[string]any{"uri": u.String(), "version": version},
			"edits":        edits,
		})
		edit["documentChanges"] = changes
		if len(annotations) > 0 {
			edit["changeAnnotations"] = annotations
		}
	} else {
		edit["changes"] = map[string]any{u.String(): edits}
	}
	return map[string]any{"label": fmt.Sprintf("agentls: %s %s", ch.Tool, ch.Path), "edit": edit}
}

// unifiedDiff renders a change for people, bounded so that a question
// stays readable.
func unifiedDiff(name, old, new string) string {
	d := udiff.Unified("a/"+name, "b/"+name, old, new)
	const max = 4000
	if len(d) > max {
		d = d[:max] + "\n… (diff cut)"
	}
	return d
}
