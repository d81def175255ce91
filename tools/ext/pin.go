package ext

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// pinVersion is the format of [Entry.Hash]. Entries recorded with another
// format (before version 2 the pin held the command line and the names of
// env variables only, not the files it runs nor the env values) never
// match: they are asked about again, never upgraded silently (A18).
const pinVersion = 2

// Bounds of what one entry's pin reads. An entry over them cannot be
// pinned: it is asked about at every start (and never starts headless).
const (
	maxPinFileBytes  = 256 << 20 // one file's content
	maxPinTotalBytes = 1 << 30   // all of an entry's files
	maxPinNames      = 1024      // the workspace names an entry's words resolve to
	maxPinDirEntries = 10000     // a directory scanned for *.pth
)

// startupFiles are the files a runtime loads by itself from a directory
// on its search path or named as the program: Python's site hooks
// (sitecustomize, usercustomize, and *.pth, which may hold code) and a
// package's __init__/__main__, Node's index files. Their absence is
// pinned too: creating one asks again.
var startupFiles = []string{"sitecustomize.py", "usercustomize.py", "__init__.py", "__main__.py", "index.js", "index.mjs", "index.cjs"}

// projectDirVars are what hooks find the workspace by ($CLAUDE_PROJECT_DIR
// in Claude Code's hook commands).
var projectDirVars = []string{"CLAUDE_PROJECT_DIR", "AGENTLS_PROJECT_DIR"}

// hookWords are the words of a hook's shell command line: the project
// directory variables replaced by root, quotes and backslashes dropped
// (they join what they hold to what is around them: "$DIR"/x.sh), split
// at blanks; "" ends a simple command (; | & ( ) ` { } newline), and the
// target of an output redirection (> out.log) is left out: it is written,
// never run.
func hookWords(root, command string) []string {
	for _, v := range projectDirVars {
		command = strings.ReplaceAll(command, "${"+v+"}", root)
		command = strings.ReplaceAll(command, "$"+v, root)
	}
	command = strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(command)
	var words []string
	var cur strings.Builder
	output := false // the next word is an output redirection's target
	flush := func() {
		if cur.Len() > 0 {
			if !output {
				words = append(words, cur.String())
			}
			output = false
			cur.Reset()
		}
	}
	for _, r := range command {
		switch {
		case r == '>':
			flush()
			output = true
		case r == '<' || r == ' ' || r == '\t':
			flush()
		case strings.ContainsRune(";|&()`{}\n\r", r):
			flush()
			output = r == '&' && output // &> and >& keep the target pending
			words = append(words, "")
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return words
}

// interpreters run the file named by their first argument that is not a
// flag (sh x, python3 x, node x, source x): that word is a file it runs
// even without a slash or an extension.
var interpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "fish": true,
	"node": true, "nodejs": true, "deno": true, "bun": true, "tsx": true, "ts-node": true, "ruby": true, "perl": true,
	"php": true, "lua": true, "luajit": true, "Rscript": true, "pypy": true, "pypy3": true, "source": true, ".": true}

func interpreter(w string) bool {
	base := filepath.Base(w)
	return interpreters[base] || strings.HasPrefix(base, "python")
}

// named picks the words of a command line (argv, "" between simple
// commands) that name a file it may run or load: a word, or a part of
// one (--config=FILE, NAME=FILE, DIR:DIR, A,B), with a slash or a dot in
// it (a path, as scripts/x.sh, ./x, x.py), and the file an interpreter
// is given (sh audit, python3 -m pkg: pkg and pkg.py). The others (touch
// done) are data, not pinned: a file of that name appearing later does
// not ask again.
func named(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		for _, part := range parts(w) {
			if strings.ContainsAny(part, "/.") {
				out = append(out, part)
			}
		}
		if !interpreter(w) {
			continue
		}
		for j := i + 1; j < len(argv) && argv[j] != ""; j++ {
			a := argv[j]
			if a == "-c" || a == "-e" || a == "--eval" || a == "-p" || a == "--print" {
				break // code follows, not a file
			}
			if a == "-m" && j+1 < len(argv) {
				out = append(out, argv[j+1], argv[j+1]+".py")
				break
			}
			if !strings.HasPrefix(a, "-") {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// parts is w and, when it has any, its parts split at = : and ,.
func parts(w string) []string {
	out := []string{w}
	for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r == '=' || r == ':' || r == ',' }) {
		if part != w {
			out = append(out, part)
		}
	}
	return out
}

// serverWords are what a stdio server's entry may run or load: the words
// of its command and arguments that [named] picks, and every word and
// part of every env value (PYTHONPATH=lib, NODE_OPTIONS=--require x.js:
// a directory or file a runtime loads from). An HTTP server runs nothing
// here.
func serverWords(c *mcp.ServerConfig) []string {
	if c.URL != "" && c.Command == "" {
		return nil
	}
	out := named(append([]string{c.Command}, c.Args...))
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		for _, w := range strings.Fields(c.Env[k]) {
			out = append(out, parts(w)...)
		}
	}
	return out
}

// pinner resolves and pins the workspace files of one entry.
type pinner struct {
	root  string // the workspace root, symlinks resolved
	given string // the root as given (words may name files under it)
	total int64  // bytes hashed so far
	names int
	// files are the states of the workspace names, by slash path.
	files map[string]string
	// why says why the entry cannot be pinned; "" when it can.
	why string
}

func newPinner(root string) *pinner {
	p := &pinner{root: root, given: root, files: map[string]string{}}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		p.root = r
	}
	return p
}

// word pins what word names in the workspace: a file by its content, a
// directory by its start-up files, nothing there as absent (a file
// created there later asks again). A word naming a place outside the
// workspace (the machine's own programs) or a flag is not pinned.
func (p *pinner) word(w string) {
	if w == "" || strings.HasPrefix(w, "-") || strings.ContainsRune(w, 0) || p.why != "" {
		return
	}
	abs := filepath.Clean(w)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.root, abs)
	}
	if rel, ok := p.rel(abs); ok {
		p.name(rel, true)
	}
}

// rel is abs relative to the root, if it lies inside (the root itself is
// ".").
func (p *pinner) rel(abs string) (string, bool) {
	for _, root := range []string{p.root, p.given} {
		r, err := filepath.Rel(root, abs)
		if err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return filepath.ToSlash(r), true
		}
	}
	return "", false
}

// name records the state of the workspace path rel; a directory's
// start-up files are recorded when dir is true.
func (p *pinner) name(rel string, dir bool) {
	if _, done := p.files[rel]; done || p.why != "" {
		return
	}
	if p.names++; p.names > maxPinNames {
		p.why = fmt.Sprintf("it names over %d workspace paths", maxPinNames)
		return
	}
	abs := filepath.Join(p.root, filepath.FromSlash(rel))
	// EvalSymlinks only reads links, never opens a file: no FIFO blocks.
	resolved, err := filepath.EvalSymlinks(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.files[rel] = "absent"
		return
	case err != nil:
		p.files[rel] = "unresolvable"
		return
	}
	target, inside := p.rel(resolved)
	if !inside {
		// A link out of the workspace: where it leads is pinned, not
		// what is there (the machine's, not the repository's).
		p.files[rel] = "outside:" + resolved
		return
	}
	state := ""
	if target != rel {
		state = "link:" + target + " "
	}
	fi, err := os.Lstat(resolved)
	switch {
	case err != nil:
		state += "unresolvable"
	case fi.Mode().IsRegular():
		state += p.content(resolved)
	case fi.IsDir():
		state += "dir"
		if dir {
			p.files[rel] = state
			p.startup(rel)
			return
		}
	default:
		state += "type:" + fi.Mode().Type().String() // a FIFO or device: never opened
	}
	p.files[rel] = state
}

// startup pins the start-up files of the directory rel.
func (p *pinner) startup(rel string) {
	join := func(name string) string {
		if rel == "." {
			return name
		}
		return rel + "/" + name
	}
	for _, name := range startupFiles {
		p.name(join(name), false)
	}
	f, err := os.OpenFile(filepath.Join(p.root, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_DIRECTORY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	names, err := f.Readdirnames(maxPinDirEntries + 1)
	if len(names) > maxPinDirEntries {
		p.why = fmt.Sprintf("%s has over %d entries to look through for *.pth files", rel, maxPinDirEntries)
		return
	}
	if err != nil && !errors.Is(err, io.EOF) {
		p.files[rel] += " unreadable"
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.HasSuffix(n, ".pth") {
			p.name(join(n), false)
		}
	}
}

// content is the hash of the regular file abs, read without blocking.
func (p *pinner) content(abs string) string {
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "unreadable" // swapped for something else
	}
	if fi.Size() > maxPinFileBytes || p.total+fi.Size() > maxPinTotalBytes {
		p.why = fmt.Sprintf("its files are too large to pin (over %d MiB one, or %d MiB in all)", maxPinFileBytes>>20, maxPinTotalBytes>>20)
		return ""
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxPinFileBytes+1))
	p.total += n
	if err != nil || n > maxPinFileBytes {
		p.why = "a file it runs cannot be read whole"
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// pin is the result of pinning one entry.
type pin struct {
	hash string
	// files are the workspace files found, for the user to review.
	files []string
	// why says why the entry cannot be pinned ("" when it could).
	why string
}

// pinEntry hashes the version, config and the states of the workspace
// files words name (see [pinner.word]). An entry that cannot be pinned gets a hash nobody
// recorded, so that it is asked about every time.
func pinEntry(root string, config any, words []string) pin {
	p := newPinner(root)
	for _, w := range words {
		p.word(w)
	}
	var out pin
	for _, rel := range slices.Sorted(maps.Keys(p.files)) {
		if s := p.files[rel]; s != "absent" && s != "dir" {
			out.files = append(out.files, rel)
		}
	}
	if p.why != "" {
		out.why = p.why
		out.hash = "unpinnable:" + rand.Text()
		return out
	}
	out.hash = hashJSON([]any{pinVersion, config, p.files})
	return out
}

// loads lists, absolute, the workspace files that words name and that a
// runtime would load from the directories they name: what a command must
// not change unseen (see [Extensions.Runs]).
func loads(root string, words []string) []string {
	p := newPinner(root)
	for _, w := range words {
		p.word(w)
	}
	var out []string
	for _, rel := range slices.Sorted(maps.Keys(p.files)) {
		if p.files[rel] != "absent" {
			out = append(out, filepath.Join(p.root, filepath.FromSlash(rel)))
		}
	}
	return out
}

// hookPin pins a project hook: its event, matcher, command, timeout and
// fail-closed settings, and the workspace files its command line names.
func hookPin(root string, ev hooks.Event, g *hooks.Group, c *hooks.Command) pin {
	return pinEntry(root, []any{"hook", ev, g.Matcher, g.OnFailure, c.Type, c.Command, c.Timeout, c.Policy, c.OnFailure},
		named(hookWords(root, c.Command)))
}

// serverPin pins a project server: its config (with the values of its
// env and headers) and the workspace files its command, arguments and env
// values name.
func serverPin(root string, c *mcp.ServerConfig) pin {
	return pinEntry(root, []any{"mcp", c.Pinned()}, serverWords(c))
}
