package acp

import (
	"context"
	"errors"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/sandbox"
)

// workspace implements tools.Workspace for one run: what the user has.
// A client that offers fs/read_text_file is asked first (its unsaved
// buffers); where it cannot answer, the disk, read through the run's
// os.Root.
type workspace struct {
	a      *acpAgent
	sid    string
	dir    string
	root   *sandbox.Root
	client bool // the client reads files (fs.readTextFile)
	writes bool // the client writes files (fs.writeTextFile)
}

func (w *workspace) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

func (w *workspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if r, err := sandbox.ResolvePath(w.dir, rel); err != nil || r != rel {
		return nil, errors.New(rel + " is not a path in the workspace")
	}
	if w.client {
		resp, err := w.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(w.sid), Path: w.abs(rel)})
		if err == nil && len(resp.Content) <= sandbox.MaxFileBytes {
			return []byte(resp.Content), nil
		}
	}
	return w.disk(rel)
}

// disk reads rel as it is on disk.
func (w *workspace) disk(rel string) ([]byte, error) {
	return w.root.ReadFile(rel, sandbox.MaxFileBytes)
}

// write lands content: through the client when it writes files, else
// atomically on disk. saved says whether the disk holds it now.
func (w *workspace) write(ctx context.Context, rel string, content []byte) (saved bool, err error) {
	if w.writes {
		_, err := w.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(w.sid), Path: w.abs(rel), Content: string(content)})
		if err != nil {
			return false, err
		}
		now, err := w.disk(rel)
		return err == nil && string(now) == string(content), nil
	}
	if err := w.root.WriteFileAtomic(rel, content, 0o644); err != nil {
		return false, err
	}
	return true, nil
}
