package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// search limits.
const (
	searchMaxMatches   = 100
	searchMaxLineRunes = 200
	searchMaxFileBytes = 1 << 20
	searchMaxFiles     = 20000
)

// searchSkipDirs are directory names search never enters.
var searchSkipDirs = map[string]bool{".git": true, "node_modules": true}

func searchTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "search",
		Description: description("search"),
		Risk:        tools.RiskRead,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["pattern"],
	"properties": {
		"pattern": {"type": "string", "minLength": 1, "maxLength": 1000},
		"path": {"type": "string", "minLength": 1, "maxLength": 4096}
	}
}`),
	}, checkSearch, runSearch)
}

// searcher holds the state of one search call.
type searcher struct {
	env     *tools.Env
	root    *sandbox.Root
	re      *regexp.Regexp
	out     strings.Builder
	matches int
	files   int
	more    bool // a match past the limit exists
	stopped bool // the file limit was hit
	secrets int  // secret-looking files the walk did not open
}

type searchArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

func runSearch(ctx context.Context, env *tools.Env, a *searchArgs) (tools.Result, error) {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return tools.Fail(tools.CodeInvalidArgs, "pattern", "invalid regular expression: "+err.Error(),
			"use Go RE2 syntax (no lookaround or backreferences); escape literal characters like ( or ."), nil
	}
	if a.Path == "" {
		a.Path = "."
	}
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	if env.Workspace == nil {
		return tools.Fail(tools.CodeUnavailable, "", "file reading is not available in this run", ""), nil
	}
	root, f := openRoot(env)
	if f != nil {
		return f.Result(), nil
	}
	defer root.Close()
	s := &searcher{env: env, root: root, re: re}
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(rel).Result(), nil
	case err != nil:
		return tools.Fail(tools.CodeInvalidArgs, "path", "cannot access "+rel+": "+errReason(err), ""), nil
	case fi.IsDir():
		err = s.walk(ctx, rel)
	case fi.Mode().IsRegular() && fi.Size() <= searchMaxFileBytes:
		err = s.file(ctx, rel, rel)
	}
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: s.result()}, nil
}

func (s *searcher) result() string {
	if s.secrets > 0 {
		// Issue 10 item 14: a directory search does not read what read_file
		// would ask about; searching such a file by its path asks.
		fmt.Fprintf(&s.out, "(%d files that may hold credentials were not searched; name one as path to ask the user)\n", s.secrets)
	}
	if s.matches == 0 && !s.stopped && s.secrets == 0 {
		return "no matches"
	}
	if s.more {
		fmt.Fprintf(&s.out, "(more matches cut after %d; narrow the pattern or the path)\n", searchMaxMatches)
	}
	if s.stopped {
		fmt.Fprintf(&s.out, "(stopped after %d files; narrow the path)\n", searchMaxFiles)
	}
	return strings.TrimSuffix(s.out.String(), "\n")
}

// done reports whether the search should stop.
func (s *searcher) done() bool { return s.more || s.stopped }

// walk searches the directory dir depth-first in name order. Symlinks are
// followed only to files inside the workspace; symlinked directories are
// not entered, which also rules out loops.
func (s *searcher) walk(ctx context.Context, dir string) error {
	ents, err := s.root.ReadDir(dir)
	if err != nil {
		return nil // unreadable or swapped: skip it
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.done() {
			return nil
		}
		rel := joinRel(dir, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			if !searchSkipDirs[e.Name()] {
				if err := s.walk(ctx, rel); err != nil {
					return err
				}
			}
		case t.IsRegular() && sandbox.IsSecretPath(rel):
			s.secrets++
		case t.IsRegular():
			if info, err := e.Info(); err == nil && info.Size() <= searchMaxFileBytes {
				if err := s.file(ctx, rel, rel); err != nil {
					return err
				}
			}
		case t&fs.ModeSymlink != 0:
			target, err := sandbox.ResolvePath(s.env.Root, rel)
			if err != nil {
				continue // leads outside the workspace
			}
			if sandbox.IsSecretPath(rel) || sandbox.IsSecretPath(target) {
				s.secrets++
				continue
			}
			if fi, err := s.root.Stat(target); err == nil && fi.Mode().IsRegular() && fi.Size() <= searchMaxFileBytes {
				if err := s.file(ctx, rel, target); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// file searches one file, read through the workspace so unsaved editor
// buffers count; name is how it is reported, rel where it is read.
func (s *searcher) file(ctx context.Context, name, rel string) error {
	if s.files++; s.files > searchMaxFiles {
		s.stopped = true
		return nil
	}
	b, err := s.env.Workspace.ReadFile(ctx, rel)
	if err != nil {
		return ctx.Err() // unreadable files are skipped
	}
	if len(b) > searchMaxFileBytes || isBinary(b) {
		return nil
	}
	for i, line := range splitLines(string(b)) {
		if !s.re.MatchString(line) {
			continue
		}
		if s.matches == searchMaxMatches {
			s.more = true
			return nil
		}
		s.matches++
		fmt.Fprintf(&s.out, "%s:%d: %s\n", displayName(name), i+1, cut(strings.TrimSpace(line), searchMaxLineRunes))
	}
	return nil
}
