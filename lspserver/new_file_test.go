package lspserver_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/command"
)

// createOnly plays VS Code's Refactor Preview applied with the new file's
// row alone: it performs create and delete operations and skips every
// text edit, then says it applied the edit.
func createOnly(t *testing.T, creates *[]string) func(ctx context.Context, raw json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					Kind         string `json:"kind"`
					URI          string `json:"uri"`
					AnnotationID string `json:"annotationId"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		for _, dc := range p.Edit.DocumentChanges {
			path := uri.URI(dc.URI).FsPath()
			switch dc.Kind {
			case "create":
				*creates = append(*creates, dc.AnnotationID)
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					t.Error(err)
				}
			case "delete":
				if err := os.Remove(path); err != nil {
					t.Error(err)
				}
			}
		}
		return map[string]any{"applied": true}, nil
	}
}

// E18 (issue 24 item 2): a new file is one decision. Its CreateFile
// carries the same confirmed annotation as its content, and when the
// editor applies the create alone (an empty file), the model is told the
// file did not land, the empty file is removed, and the counts say
// rejected, not created.
func TestServer_E18_NewFileCreatedEmptyIsNotApplied(t *testing.T) {
	script := strings.Join([]string{
		`{"tool_calls":[{"id":"w1","name":"write_file","arguments":{"path":"greet_test.go","content":"package a\n"}}]}`,
		`{"content":"Done."}`,
	}, "\n")
	caps := clientCaps(true, false, false)
	caps["workspace"].(map[string]any)["workspaceEdit"].(map[string]any)["resourceOperations"] = []string{"create", "delete"}
	h := start(t, setup{script: script, files: map[string]string{"a.go": twoFuncs}, caps: caps})
	var creates []string
	h.c.Handle("workspace/applyEdit", createOnly(t, &creates))

	res := h.mustRun(command.Execute, execArg(h))
	if len(creates) != 1 || creates[0] == "" {
		t.Fatalf("create operations with annotations %q, want one annotated", creates)
	}
	var p struct {
		Edit struct {
			ChangeAnnotations map[string]struct {
				NeedsConfirmation bool `json:"needsConfirmation"`
			} `json:"changeAnnotations"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(h.c.Received("workspace/applyEdit")[0].Params, &p); err != nil {
		t.Fatal(err)
	}
	if a, ok := p.Edit.ChangeAnnotations[creates[0]]; !ok || !a.NeedsConfirmation || len(p.Edit.ChangeAnnotations) != 1 {
		t.Errorf("annotations %+v: want the create's one, needing confirmation, shared with the content", p.Edit.ChangeAnnotations)
	}
	r := h.editResult("w1")
	if r.Applied || r.Code != "approval_denied" || !strings.Contains(r.Reason, "empty") {
		t.Errorf("tool result %+v, want not applied: created empty", r)
	}
	if _, err := os.Stat(h.path("greet_test.go")); !os.IsNotExist(err) {
		t.Errorf("the empty file is left behind (%v)", err)
	}
	if e := res.Edits; e.Applied != 0 || e.Rejected != 1 || len(e.Created) != 0 {
		t.Errorf("edits %+v, want 1 rejected and nothing created", e)
	}
}
