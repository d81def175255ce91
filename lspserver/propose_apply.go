package lspserver

import (
	"context"
	"fmt"
	"path"

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
		e := protocol.TextEdit{Range: rangeOf(cur, h.Start, h.End), NewText: h.Repl}
		plain = append(plain, e)
		if !annotate {
			edits = append(edits, &e)
			continue
		}
		id := protocol.ChangeAnnotationIdentifier(fmt.Sprintf("agentls.%d", i))
		a := protocol.ChangeAnnotation{
			Label:             fmt.Sprintf("%s: %s lines %s: %s", ch.Tool, path.Base(ch.Path), h.Lines, h.What),
			NeedsConfirmation: &confirm,
			Description:       ptr(fmt.Sprintf("agentls proposes hunk %d of %d in %s", i+1, len(hs), ch.Path)),
		}
		if ch.Create {
			// E18: a new file is one decision. The CreateFile and its
			// content share one annotation, so VS Code's preview shows
			// one row: the file with its content, or nothing.
			id = createAnnotation
			a.Label = fmt.Sprintf("%s: create %s", ch.Tool, path.Base(ch.Path))
			a.Description = ptr("agentls proposes the new file " + ch.Path + " with its content")
		}
		edits = append(edits, &protocol.AnnotatedTextEdit{TextEdit: e, AnnotationID: id})
		annotations[id] = a
	}
	var edit protocol.WorkspaceEdit
	if caps.documentChanges {
		if ch.Create {
			no := false
			op := &protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{Overwrite: &no, IgnoreIfExists: &no}}
			if annotate {
				op.AnnotationID = createAnnotation
			}
			edit.DocumentChanges = append(edit.DocumentChanges, op)
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

// createAnnotation is the one change annotation of a new file: its
// CreateFile and its content (E18).
const createAnnotation protocol.ChangeAnnotationIdentifier = "agentls.create"

func ptr[T any](v T) *T { return &v }

// unifiedDiff renders a change for people, bounded so that a question
// stays readable.
func unifiedDiff(name, old, new string) string {
	d := tools.UnifiedDiff(name, old, new)
	const max = 4000
	if len(d) > max {
		d = d[:max] + "\n… (diff cut)"
	}
	return d
}

// deleteFile removes rel through workspace/applyEdit (a DeleteFile
// operation the editor need not confirm: agentls made the file). It
// returns "" when the file is gone, otherwise why not.
func (p *proposer) deleteFile(ctx context.Context, rel, title, label string) string {
	p.s.mu.Lock()
	caps := p.s.caps
	p.s.mu.Unlock()
	if !caps.applyEdit || !caps.documentChanges || !caps.deleteFiles {
		return "the editor cannot delete files"
	}
	no, id := false, protocol.ChangeAnnotationIdentifier("agentls.delete")
	op := &protocol.DeleteFile{ResourceOperation: protocol.ResourceOperation{AnnotationID: id}, Kind: "delete",
		URI: p.s.uriFor(rel), Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: &no}}
	params := &protocol.ApplyWorkspaceEditParams{Label: ptr(title), Edit: protocol.WorkspaceEdit{
		DocumentChanges:   []protocol.DocumentChange{op},
		ChangeAnnotations: map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{id: {Label: label, NeedsConfirmation: &no}},
	}}
	var res protocol.ApplyWorkspaceEditResult
	if err := p.call(ctx, "workspace/applyEdit", params, &res); err != nil {
		return fmt.Sprintf("the editor did not delete it (%v)", err)
	}
	if !res.Applied {
		if res.FailureReason != nil && *res.FailureReason != "" {
			return *res.FailureReason
		}
		return "the editor did not delete it"
	}
	if _, ok := p.ws.disk(rel); ok {
		return "the editor said it deleted the file, but it is still there"
	}
	return ""
}
