package headless

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// applyEdit shows the proposal, asks for each annotated hunk, and writes
// the approved hunks to disk atomically. Refused hunks are never written.
func (c *client) applyEdit(params jsonrpc2.RawMessage) (any, error) {
	var p protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	created := map[uri.URI]bool{}
	applied := false
	said := &lspserver.HunkReply{} // the user's reasons and texts (issue 28)
	for _, change := range p.Edit.DocumentChanges {
		switch ch := change.(type) {
		case *protocol.CreateFile:
			created[ch.URI] = true
		case *protocol.RenameFile:
			return fail("unsupported resource operation " + ch.Kind), nil
		case *protocol.DeleteFile:
			ok, reason := c.deleteFile(ch, p.Edit.ChangeAnnotations)
			if !ok {
				return fail(reason), nil
			}
			applied = true
		case *protocol.TextDocumentEdit:
			wrote, failure := c.applyDocumentEdit(ch, p.Edit.ChangeAnnotations, created[ch.TextDocument.URI], said)
			if failure != "" {
				return fail(failure), nil
			}
			applied = applied || wrote
		default:
			return fail(fmt.Sprintf("unsupported document change %T", change)), nil
		}
	}
	if len(said.Hunks) == 0 {
		said = nil
	}
	if !applied {
		return &reply{FailureReason: fail("rejected by the user").FailureReason, Agentls: said}, nil
	}
	return &reply{Applied: true, Agentls: said}, nil
}

// reply is the applyEdit reply with the user's answers per hunk (the
// "agentls" member, lspserver's package documentation).
type reply struct {
	Applied       bool                 `json:"applied"`
	FailureReason *string              `json:"failureReason,omitempty"`
	Agentls       *lspserver.HunkReply `json:"agentls,omitempty"`
}

// applyDocumentEdit shows one document's edit, asks for its hunks and
// writes those approved. It reports whether it wrote the file, or why
// the whole workspace edit fails. created: the edit made the file.
func (c *client) applyDocumentEdit(dc *protocol.TextDocumentEdit, notes map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation, created bool, said *lspserver.HunkReply) (wrote bool, failure string) {
	path, rel, err := c.pathOf(string(dc.TextDocument.URI))
	if err != nil {
		return false, err.Error()
	}
	// The file is read once, into the one string the edits apply to; the
	// stale check below streams the disk against it, and the approved text
	// is written from the string itself: a one-line edit of a 10 MiB file
	// holds two copies here, the old text and the new (issue 27 item 2).
	old, existed := "", false
	if text, err := readText(path); err == nil {
		old, existed = text, true
	} else if !created {
		return false, rel + " does not exist"
	}
	all, ids, failure := textEdits(dc, rel)
	if failure != "" {
		return false, failure
	}
	proposed, err := lspserver.ApplyEdits(old, all)
	if err != nil {
		return false, err.Error()
	}
	c.out.diff(rel, tools.UnifiedDiff(rel, old, proposed))
	keep := c.confirmHunks(rel, all, ids, notes, said)
	if c.ctx.Err() != nil {
		// Ctrl-C at a prompt (E17): nothing of this edit is written,
		// not even the hunks approved before it.
		return false, "cancelled"
	}
	if len(keep) == 0 {
		return false, ""
	}
	next := proposed // every hunk approved as shown: the text shown is the one written
	if !slices.Equal(keep, all) {
		if next, err = lspserver.ApplyEdits(old, keep); err != nil {
			return false, err.Error()
		}
	}
	// T17: the file may have changed while the questions were open; the
	// ranges are for what was shown, so they must not land on anything else.
	if !sameOnDisk(path, old, existed) {
		return false, "stale: " + rel + " changed on disk while the change was being confirmed"
	}
	if err := c.writeAtomic(rel, readOnlyBytes(next)); err != nil {
		return false, "write " + rel + ": " + err.Error()
	}
	return true, ""
}

// readText reads the file at path into one string, sized from the
// file's length (a file that grows meanwhile is read on).
func readText(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b.Grow(int(fi.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// sameOnDisk reports whether the file at path still holds text (or, when
// existed is false, still does not exist). It compares while it reads, a
// block at a time, without holding a second copy of the file.
func sameOnDisk(path, text string, existed bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return !existed && errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	if !existed {
		return false
	}
	buf := make([]byte, 64<<10)
	rest := text
	for {
		n, err := f.Read(buf)
		if n > len(rest) || string(buf[:n]) != rest[:n] {
			return false
		}
		rest = rest[n:]
		if err == io.EOF {
			return rest == ""
		}
		if err != nil {
			return false
		}
	}
}

// readOnlyBytes returns the bytes of s without copying them, for a
// callee that only reads them (the atomic write): a copy of a 10 MiB text
// costs 10 MiB at the peak of an edit (issue 27 item 2). The slice must
// never be written to.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// textEdits returns the edits of dc with their annotation IDs ("" for a
// plain edit).
func textEdits(dc *protocol.TextDocumentEdit, rel string) ([]protocol.TextEdit, []protocol.ChangeAnnotationIdentifier, string) {
	all := make([]protocol.TextEdit, len(dc.Edits))
	ids := make([]protocol.ChangeAnnotationIdentifier, len(dc.Edits))
	for i, e := range dc.Edits {
		switch e := e.(type) {
		case *protocol.TextEdit:
			all[i] = *e
		case *protocol.AnnotatedTextEdit:
			all[i], ids[i] = e.TextEdit, e.AnnotationID
		default:
			return nil, nil, fmt.Sprintf("unsupported edit %T in %s", e, rel)
		}
	}
	return all, ids, ""
}

// confirmHunks asks for each hunk and returns those approved: a hunk
// whose annotation does not need confirmation is allowed by policy
// without a question. The user's reasons and edited texts go to said.
func (c *client) confirmHunks(rel string, all []protocol.TextEdit, ids []protocol.ChangeAnnotationIdentifier, notes map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation, said *lspserver.HunkReply) []protocol.TextEdit {
	var keep []protocol.TextEdit
	for i := range all {
		label := fmt.Sprintf("hunk %d of %d in %s", i+1, len(all), rel)
		a, annotated := notes[ids[i]]
		if annotated {
			label = a.Label + checksNote(a) // E22
		}
		if annotated && (a.NeedsConfirmation == nil || !*a.NeedsConfirmation) {
			c.out.approval("Apply "+label+"?", command.ActionApprove, decisionApproved, "approved (allowed by policy)")
			keep = append(keep, all[i])
			continue
		}
		ans := c.askHunk("Apply "+label+"?", all[i].NewText)
		ans.note(said, hunkIndex(string(ids[i])))
		if ans.keep {
			e := all[i]
			if ans.text != nil {
				e.NewText = *ans.text
			}
			keep = append(keep, e)
		}
	}
	return keep
}

func fail(reason string) *protocol.ApplyWorkspaceEditResult {
	return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}
}

// pathOf maps a file URI to a path inside the workspace; the client checks
// containment itself rather than trusting the server.
func (c *client) pathOf(raw string) (path, rel string, err error) {
	u, err := uri.Parse(raw)
	if err != nil || u.Scheme() != "file" {
		return "", "", fmt.Errorf("not a file URI: %s", raw)
	}
	path = filepath.Clean(u.FsPath())
	rel, err = filepath.Rel(c.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", "", fmt.Errorf("refusing an edit outside the workspace")
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		if r, err := filepath.Rel(c.root, real); err != nil || strings.HasPrefix(r, "..") {
			return "", "", fmt.Errorf("refusing an edit outside the workspace")
		}
	}
	return path, filepath.ToSlash(rel), nil
}

// writeAtomic writes data to the workspace file rel, atomically and
// keeping its mode, through the sandbox's os.Root: a crash never leaves a
// half-written file, nor (on Linux) a temporary one.
func (c *client) writeAtomic(rel string, data []byte) error {
	root, err := sandbox.OpenRoot(c.root)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.WriteFileAtomic(rel, data, 0o644)
}

// deleteFile deletes a file (agentls deletes only files a reverted run
// had created), asking first unless its annotation says the user asked
// for it already.
func (c *client) deleteFile(op *protocol.DeleteFile, notes map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation) (bool, string) {
	path, rel, err := c.pathOf(string(op.URI))
	if err != nil {
		return false, err.Error()
	}
	if why := deletable(c.root, rel); why != "" {
		return false, "refusing to delete " + rel + ": " + why
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return false, rel + " does not exist"
	}
	if !fi.Mode().IsRegular() {
		return false, "refusing to delete " + rel + ": not a regular file"
	}
	question := "Delete " + rel + "?"
	if a, ok := notes[op.AnnotationID]; ok && op.AnnotationID != "" && (a.NeedsConfirmation == nil || !*a.NeedsConfirmation) {
		c.out.approval(question, command.ActionApprove, decisionApproved, "approved ("+a.Label+")")
	} else if !c.confirm(question) {
		return false, "rejected by the user"
	}
	if err := os.Remove(path); err != nil {
		return false, "delete " + rel + ": " + err.Error()
	}
	c.out.deleted(rel)
	return true, ""
}

// deletable says why the workspace file rel must not be deleted, or "":
// a control file (E15: .git, .vscode, … at any depth) or a path that
// leads through a symlink, which could make a delete land inside .git
// (issue 22 item 6). The server checks the same; this client does not
// trust it.
func deletable(root, rel string) string {
	if _, ok := sandbox.MatchControlPath(rel); ok {
		return "a control file"
	}
	p := root
	for comp := range strings.SplitSeq(rel, "/") {
		p = filepath.Join(p, comp)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "it leads through a symlink"
		}
	}
	return ""
}
