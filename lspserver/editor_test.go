package lspserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
)

// editor plays a VS Code-like editor for execute runs: it keeps buffers,
// applies the hunks the "user" accepts (sending didOpen/didChange before
// it answers applyEdit, as editors do) and saves buffers on
// agentls/saveDocuments.
type editor struct {
	h *harness

	mu       sync.Mutex // guards the fields below
	bufs     map[string]*buffer
	accept   func(i int) bool // which edits of a TextDocumentEdit to apply; nil: all
	answer   *applyAnswer     // when set, answer this without applying anything
	saveDisk bool             // saveDocuments writes buffers to disk (default true)
	applied  int
}

type buffer struct {
	version int
	text    string
}

type applyAnswer struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

func newEditor(h *harness) *editor {
	e := &editor{h: h, bufs: map[string]*buffer{}, saveDisk: true}
	h.c.Handle("workspace/applyEdit", e.applyEdit)
	h.c.Handle(command.MethodSaveDocuments, e.saveDocuments)
	return e
}

// open opens rel in the editor with text (the disk content when text is
// nil).
func (e *editor) open(rel string, version int, text *string) {
	t := ""
	if text != nil {
		t = *text
	} else {
		t = e.h.read(rel)
	}
	e.mu.Lock()
	e.bufs[e.h.uri(rel)] = &buffer{version: version, text: t}
	e.mu.Unlock()
	e.h.open(rel, version, t)
}

// type-in changes the buffer of rel as the user would.
func (e *editor) typeIn(rel, text string) {
	u := e.h.uri(rel)
	e.mu.Lock()
	b := e.bufs[u]
	b.version++
	b.text = text
	v := b.version
	e.mu.Unlock()
	e.h.changeAll(rel, v, text)
}

func (e *editor) text(rel string) (string, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.bufs[e.h.uri(rel)]
	if b == nil {
		return "", -1
	}
	return b.text, b.version
}

type docChange struct {
	Kind         string `json:"kind"`
	URI          string `json:"uri"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []struct {
		Range        protocol.Range `json:"range"`
		NewText      string         `json:"newText"`
		AnnotationID string         `json:"annotationId"`
	} `json:"edits"`
}

type applyParams struct {
	Label string `json:"label"`
	Edit  struct {
		DocumentChanges   []docChange `json:"documentChanges"`
		ChangeAnnotations map[string]struct {
			Label             string `json:"label"`
			NeedsConfirmation bool   `json:"needsConfirmation"`
		} `json:"changeAnnotations"`
	} `json:"edit"`
}

func (e *editor) applyEdit(ctx context.Context, raw json.RawMessage) (any, error) {
	var p applyParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	e.mu.Lock()
	answer, accept := e.answer, e.accept
	e.mu.Unlock()
	if answer != nil {
		return answer, nil
	}
	applied := false
	for _, dc := range p.Edit.DocumentChanges {
		if dc.Kind == "create" {
			continue
		}
		u := dc.TextDocument.URI
		e.mu.Lock()
		b := e.bufs[u]
		e.mu.Unlock()
		if b == nil {
			// Not open: load it from disk, as an editor opens a hidden
			// document for the edit.
			path := uri.URI(u).FsPath()
			data, _ := os.ReadFile(path)
			b = &buffer{version: 1, text: string(data)}
			e.mu.Lock()
			e.bufs[u] = b
			e.mu.Unlock()
			if err := e.h.c.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": u, "languageId": "go", "version": 1, "text": b.text,
			}}); err != nil {
				return nil, err
			}
		}
		if dc.TextDocument.Version != nil && *dc.TextDocument.Version != b.version {
			return applyAnswer{FailureReason: fmt.Sprintf("version %d, buffer at %d", *dc.TextDocument.Version, b.version)}, nil
		}
		var keep []protocol.TextEdit
		for i, ed := range dc.Edits {
			if accept == nil || accept(i) {
				keep = append(keep, protocol.TextEdit{Range: ed.Range, NewText: ed.NewText})
			}
		}
		if len(keep) == 0 {
			continue
		}
		next, err := lspserver.ApplyEdits(b.text, keep)
		if err != nil {
			return applyAnswer{FailureReason: err.Error()}, nil
		}
		e.mu.Lock()
		b.text = next
		b.version++
		v := b.version
		e.applied++
		e.mu.Unlock()
		if err := e.h.c.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": v},
			"contentChanges": []any{map[string]any{"text": next}},
		}); err != nil {
			return nil, err
		}
		applied = true
	}
	if !applied {
		return applyAnswer{FailureReason: "the user refused every hunk"}, nil
	}
	return applyAnswer{Applied: true}, nil
}

func (e *editor) saveDocuments(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		URIs []string `json:"uris"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	saved := []string{}
	for _, u := range p.URIs {
		if err := e.save(ctx, u); err == nil {
			saved = append(saved, u)
		}
	}
	return map[string]any{"saved": saved}, nil
}

// save writes the buffer of u to disk and sends didSave.
func (e *editor) save(ctx context.Context, u string) error {
	e.mu.Lock()
	b := e.bufs[u]
	ok := e.saveDisk
	e.mu.Unlock()
	if b == nil || !ok {
		return fmt.Errorf("not saved")
	}
	if err := os.WriteFile(uri.URI(u).FsPath(), []byte(b.text), 0o644); err != nil {
		return err
	}
	return e.h.c.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": u}})
}
