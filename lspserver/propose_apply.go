package lspserver

import (
	"fmt"
	"path"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/tools"
)

func rangeOf(text string, start, end int) protocol.Range {
	return protocol.Range{Start: position(text, start), End: position(text, end)}
}

// buildEdit makes the workspace/applyEdit params for a change: versioned
// document edits with one annotated edit per hunk where the client supports
// them (E6), plain changes otherwise.
func buildEdit(caps clientCaps, u uri.URI, ch *tools.FileChange, version *int32, cur string, hs []hunk, confirm bool) *protocol.ApplyWorkspaceEditParams {
	annotate := caps.annotations && caps.documentChanges
	edits := make([]protocol.TextDocumentEditElement, 0, len(hs))
	plain := make([]protocol.TextEdit, 0, len(hs))
	annotations := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{}
	for i, h := range hs {
		e := protocol.TextEdit{Range: rangeOf(cur, h.start, h.end), NewText: h.repl}
		plain = append(plain, e)
		if !annotate {
			edits = append(edits, &e)
			continue
		}
		id := protocol.ChangeAnnotationIdentifier(fmt.Sprintf("agentls.%d", i))
		edits = append(edits, &protocol.AnnotatedTextEdit{TextEdit: e, AnnotationID: id})
		annotations[id] = protocol.ChangeAnnotation{
			Label:             fmt.Sprintf("%s: %s lines %s", ch.Tool, path.Base(ch.Path), h.lines),
			NeedsConfirmation: &confirm,
			Description:       ptr(fmt.Sprintf("agentls proposes hunk %d of %d in %s", i+1, len(hs), ch.Path)),
		}
	}
	var edit protocol.WorkspaceEdit
	if caps.documentChanges {
		if ch.Create {
			no := false
			edit.DocumentChanges = append(edit.DocumentChanges, &protocol.CreateFile{Kind: "create", URI: u,
				Options: &protocol.CreateFileOptions{Overwrite: &no, IgnoreIfExists: &no}})
			version = nil
		}
		doc := protocol.OptionalVersionedTextDocumentIdentifier{Version: version}
		doc.URI = u
		edit.DocumentChanges = append(edit.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: doc, Edits: edits})
		if len(annotations) > 0 {
			edit.ChangeAnnotations = annotations
		}
	} else {
		edit.Changes = map[uri.URI][]protocol.TextEdit{u: plain}
	}
	return &protocol.ApplyWorkspaceEditParams{Label: ptr(fmt.Sprintf("agentls: %s %s", ch.Tool, ch.Path)), Edit: edit}
}

func ptr[T any](v T) *T { return &v }

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
