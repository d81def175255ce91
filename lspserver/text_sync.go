package lspserver

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func (s *Server) didOpen(params jsonrpc2.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs.open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.documentChanged(s.connCtx, p.TextDocument.URI)
	return nil
}

func (s *Server) didChange(params jsonrpc2.RawMessage) error {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if err := s.docs.change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges); err != nil {
		return err
	}
	s.documentChanged(s.connCtx, p.TextDocument.URI)
	return nil
}

func (s *Server) didClose(params jsonrpc2.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs.close(p.TextDocument.URI)
	s.documentChanged(s.connCtx, p.TextDocument.URI) // back to the disk's text
	return nil
}

func (s *Server) didSave(params jsonrpc2.RawMessage) error {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs.didSave(p.TextDocument.URI)
	return nil
}
