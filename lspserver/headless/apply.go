package headless

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

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
	// Issue 27 item 2: the file is read once, into the string the preview
	// is computed from; the text written is built straight from the disk,
	// after the questions, and never next to a second copy of the file: a
	// one-line edit of a 10 MiB file holds 10 MiB here, not 60.
	old, existed, sum := "", false, sha256.Sum256(nil)
	if text, textSum, err := readText(path); err == nil {
		old, existed, sum = text, true, textSum
	} else if !created {
		return false, rel + " does not exist"
	}
	all, ids, failure := textEdits(dc, rel)
	if failure != "" {
		return false, failure
	}
	spans, _, err := lspserver.EditSpans(old, all)
	if err != nil {
		return false, err.Error()
	}
	c.out.diff(rel, previewDiff(rel, old, spans))
	keep := c.confirmHunks(rel, all, ids, notes, said)
	if c.ctx.Err() != nil {
		// Ctrl-C at a prompt (E17): nothing of this edit is written,
		// not even the hunks approved before it.
		return false, "cancelled"
	}
	if len(keep) == 0 {
		return false, ""
	}
	spans, size, err := lspserver.EditSpans(old, keep)
	if err != nil {
		return false, err.Error()
	}
	big := len(old) >= bigText
	if big {
		// old is garbage from here on: collected now, it is never
		// resident next to the new text of the same size.
		runtime.GC()
	}
	// T17: the file may have changed while the questions were open; the
	// ranges are for what was shown, so they must not land on anything
	// else. The new text is built from the disk as it is now, and only
	// if the disk still holds, byte for byte, the text shown (sha256).
	next, same := rebuild(path, existed, sum, spans, size)
	if !same {
		return false, "stale: " + rel + " changed on disk while the change was being confirmed"
	}
	if err := c.writeAtomic(rel, next); err != nil {
		return false, "write " + rel + ": " + err.Error()
	}
	if big {
		runtime.GC() // the same for the text written, before the server reads the file back
	}
	return true, ""
}

// bigText is the size from which applyDocumentEdit collects a text it
// no longer needs at once rather than when the heap grows (issue 27 item
// 2): the next text of the same size follows within microseconds, before
// a collection the heap's growth starts could free it.
const bigText = 1 << 20

// readText reads the file at path into one string, sized from the
// file's length (a file that grows meanwhile is read on), and returns its
// sha256 too.
func readText(path string) (string, [sha256.Size]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", [sha256.Size]byte{}, err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b.Grow(int(fi.Size()))
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(&b, h), f); err != nil {
		return "", [sha256.Size]byte{}, err
	}
	return b.String(), [sha256.Size]byte(h.Sum(nil)), nil
}

// rebuild builds the text that the edits spans make of the file at path
// (size bytes) while it reads the file: the bytes the edits keep go
// straight into the new text, the others only into a hash. same is false,
// and next nil, unless the file still holds the text whose sha256 is sum
// (or, when existed is false, still does not exist).
func rebuild(path string, existed bool, sum [sha256.Size]byte, spans []lspserver.EditSpan, size int) (next []byte, same bool) {
	f, err := os.Open(path)
	if err != nil {
		if existed || !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		// A new file: the edits are its whole content.
		next = make([]byte, 0, size)
		for _, sp := range spans {
			next = append(next, sp.Text...)
		}
		return next, true
	}
	defer f.Close()
	if !existed {
		return nil, false
	}
	h := sha256.New()
	r := io.TeeReader(bufio.NewReaderSize(f, 64<<10), h)
	next = make([]byte, size)
	at, pos := 0, 0 // next[:at] is built; the file is read up to pos
	for _, sp := range spans {
		keep := sp.Start - pos
		if at+keep+len(sp.Text) > size {
			return nil, false
		}
		if _, err := io.ReadFull(r, next[at:at+keep]); err != nil {
			return nil, false
		}
		if _, err := io.CopyN(io.Discard, r, int64(sp.End-sp.Start)); err != nil {
			return nil, false
		}
		at += keep
		at += copy(next[at:], sp.Text)
		pos = sp.End
	}
	if _, err := io.ReadFull(r, next[at:]); err != nil {
		return nil, false
	}
	// The file must end here, and the bytes read must be the text shown.
	if n, _ := io.Copy(io.Discard, r); n != 0 || [sha256.Size]byte(h.Sum(nil)) != sum {
		return nil, false
	}
	return next, true
}

// previewDiff is the unified diff of old and what spans make of it,
// computed on the lines around the edits only (with the context the diff
// shows), so that a one-line edit of a big file never builds the whole
// new text to show it. Its hunk headers count lines from the file's start.
func previewDiff(rel, old string, spans []lspserver.EditSpan) string {
	if len(spans) == 0 {
		return ""
	}
	from, to := tools.LinesAround(old, spans[0].Start, spans[len(spans)-1].End, previewContext)
	var b strings.Builder
	pos := from
	for _, sp := range spans {
		b.WriteString(old[pos:sp.Start])
		b.WriteString(sp.Text)
		pos = sp.End
	}
	b.WriteString(old[pos:to])
	return tools.UnifiedDiffAt(rel, old, from, to, b.String())
}

// previewContext is how many lines around the edits previewDiff gives the
// diff: more than the 3 lines of context it shows, so that the window
// never cuts the context short.
const previewContext = 4

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
