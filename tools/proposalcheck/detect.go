package proposalcheck

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Check is one command run on the proposal.
type Check struct {
	Name    string // "go build", "go vet", "compileall", "tsc", or the user's name
	Command string // a shell command, run at the workspace root
	// Go gives the command the user's Go build cache as a warm layer.
	Go bool
	// Builds marks a check that the checks after it need: when it fails,
	// those are not run.
	Builds bool
}

// Detect returns the checks for a change of changed (workspace-relative
// slash paths) in the project at root: only defaults that follow from
// what the project is, never a command a repository file names.
func Detect(root string, changed []string) []Check {
	var out []Check
	if goFiles := withExt(changed, ".go"); (len(goFiles) > 0 || slices.Contains(changed, "go.mod")) && exists(root, "go.mod") {
		out = append(out, Check{Name: "go build", Command: "go build ./...", Go: true, Builds: true})
		if pkgs := goPackages(goFiles); len(pkgs) > 0 {
			out = append(out, Check{Name: "go vet", Command: "go vet " + quoteAll(pkgs), Go: true})
		}
	}
	if py := withExt(changed, ".py"); len(py) > 0 {
		out = append(out, Check{Name: "compileall", Command: "python3 -I -m compileall -q -- " + quoteAll(py)})
	}
	if ts := append(withExt(changed, ".ts"), withExt(changed, ".tsx")...); len(ts) > 0 &&
		exists(root, "tsconfig.json") && exists(root, "node_modules/typescript/bin/tsc") {
		out = append(out, Check{Name: "tsc", Command: "node node_modules/typescript/bin/tsc --noEmit -p ."})
	}
	return out
}

// withExt returns the paths of changed that end in ext.
func withExt(changed []string, ext string) []string {
	var out []string
	for _, p := range changed {
		if strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
	}
	return out
}

// goPackages returns the package patterns ("./dir") of the Go files.
func goPackages(files []string) []string {
	var out []string
	for _, f := range files {
		p := "./" + path.Dir(f)
		if p == "./." {
			p = "."
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func exists(root, rel string) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular()
}

// quoteAll quotes each word for the shell and joins them with spaces.
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
