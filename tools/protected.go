package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// NamedPaths returns the workspace-relative paths of the existing files
// and directories that the words of lines name, relative to root or
// absolute (`sh scripts/audit.sh`, `--config=tools/x.json`): what hooks
// and MCP servers run, which a command must not change unasked (S10).
func NamedPaths(root string, lines []string) []string {
	var out []string
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			w = strings.Trim(w, `"'`)
			if _, v, ok := strings.Cut(w, "="); ok {
				w = v
			}
			if rel, ok := namedPath(root, w); ok && !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}

func namedPath(root, w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "-") {
		return "", false
	}
	p := w
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	if _, err := os.Lstat(p); err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
