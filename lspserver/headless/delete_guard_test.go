package headless

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Issue 22 item 6, A16, E15: the headless client deletes no file through
// a symlink and no control file, even when the server asks with an
// annotation that needs no confirmation (a revert): a symlink swapped in
// by a command must not turn "delete docs/notes/HEAD" into deleting
// .git/HEAD.
func TestDeleteFile_A16_NeverThroughSymlinkOrControl(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.Symlink("../.git", filepath.Join(root, "docs", "notes"))
	os.WriteFile(filepath.Join(root, "made.txt"), []byte("x\n"), 0o644)
	var out bytes.Buffer
	c := &client{root: root, out: &printer{w: &out, errw: &out}}
	no := false
	notes := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{"r": {Label: "revert", NeedsConfirmation: &no}}
	del := func(rel string) (bool, string) {
		op := &protocol.DeleteFile{URI: uri.File(filepath.Join(root, rel)), ResourceOperation: protocol.ResourceOperation{AnnotationID: "r"}}
		return c.deleteFile(op, notes)
	}
	for _, rel := range []string{"docs/notes/HEAD", ".git/config"} {
		if ok, why := del(rel); ok || why == "" {
			t.Errorf("%s deleted (%v, %q)", rel, ok, why)
		}
	}
	for _, p := range []string{".git/HEAD", ".git/config"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
	if ok, why := del("made.txt"); !ok {
		t.Errorf("an ordinary file was not deleted: %s", why)
	}
}
