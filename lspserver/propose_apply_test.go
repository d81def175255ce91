package lspserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/transport"
	"github.com/agentls/agentls/tools"
)

// E6: the workspace/applyEdit params for each kind of client, pinned as
// JSON: versioned document changes with one annotated edit per hunk;
// document changes without annotations; a new file (a create operation and
// a null version, one annotation for the file and its content); plain changes for a client without document changes.
func TestBuildEdit_Wire(t *testing.T) {
	const old = "a\nb\nc\n"
	const new = "a\nB\nc\nd\n"
	u := uri.File("/w/a.go")
	v := int32(4)
	tests := []struct {
		name    string
		caps    clientCaps
		create  bool
		version *int32
		confirm bool
		want    string
	}{
		{"annotations", clientCaps{documentChanges: true, annotations: true}, false, &v, true, `{
			"label": "agentls: edit_file a.go",
			"edit": {
				"documentChanges": [{"textDocument": {"uri": "file:///w/a.go", "version": 4}, "edits": [
					{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "B\n", "annotationId": "agentls.0"},
					{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "newText": "d\n", "annotationId": "agentls.1"}]}],
				"changeAnnotations": {
					"agentls.0": {"label": "edit_file: a.go lines 2: change to “B”", "needsConfirmation": true, "description": "agentls proposes hunk 1 of 2 in a.go"},
					"agentls.1": {"label": "edit_file: a.go lines 4 (insert): insert “d”", "needsConfirmation": true, "description": "agentls proposes hunk 2 of 2 in a.go"}}}}`},
		{"preapproved", clientCaps{documentChanges: true, annotations: true}, false, nil, false, `{
			"label": "agentls: edit_file a.go",
			"edit": {
				"documentChanges": [{"textDocument": {"uri": "file:///w/a.go", "version": null}, "edits": [
					{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "B\n", "annotationId": "agentls.0"},
					{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "newText": "d\n", "annotationId": "agentls.1"}]}],
				"changeAnnotations": {
					"agentls.0": {"label": "edit_file: a.go lines 2: change to “B”", "needsConfirmation": false, "description": "agentls proposes hunk 1 of 2 in a.go"},
					"agentls.1": {"label": "edit_file: a.go lines 4 (insert): insert “d”", "needsConfirmation": false, "description": "agentls proposes hunk 2 of 2 in a.go"}}}}`},
		{"no annotations", clientCaps{documentChanges: true}, false, &v, true, `{
			"label": "agentls: edit_file a.go",
			"edit": {"documentChanges": [{"textDocument": {"uri": "file:///w/a.go", "version": 4}, "edits": [
				{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "B\n"},
				{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "newText": "d\n"}]}]}}`},
		// E18 (issue 24 item 2): the CreateFile and its content carry one
		// annotation, so the new file is one row in VS Code's preview.
		{"create", clientCaps{documentChanges: true, annotations: true, createFiles: true}, true, &v, true, `{
			"label": "agentls: edit_file a.go",
			"edit": {
				"documentChanges": [
					{"kind": "create", "uri": "file:///w/a.go", "options": {"overwrite": false, "ignoreIfExists": false}, "annotationId": "agentls.create"},
					{"textDocument": {"uri": "file:///w/a.go", "version": null}, "edits": [
						{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "B\n", "annotationId": "agentls.create"},
						{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "newText": "d\n", "annotationId": "agentls.create"}]}],
				"changeAnnotations": {
					"agentls.create": {"label": "edit_file: create a.go", "needsConfirmation": true, "description": "agentls proposes the new file a.go with its content"}}}}`},
		{"plain changes", clientCaps{annotations: true}, false, &v, true, `{
			"label": "agentls: edit_file a.go",
			"edit": {"changes": {"file:///w/a.go": [
				{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "B\n"},
				{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "newText": "d\n"}]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := &tools.FileChange{Path: "a.go", Tool: "edit_file", Old: []byte(old), New: []byte(new), Create: tt.create}
			raw, err := marshalParams(buildEdit(tt.caps, u, ch, tt.version, old, computeHunks(old, new), tt.confirm))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decodeJSON(t, []byte(tt.want)), decodeJSON(t, raw)); diff != "" {
				t.Errorf("applyEdit params (-want +got):\n%s\n%s", diff, raw)
			}
		})
	}
}

func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// marshalParams encodes params as the connection does.
func marshalParams(params any) ([]byte, error) { return transport.Codec{}.Marshal(params) }
