package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// search limits.
const (
	searchMaxMatches   = 100 // matches shown per call; offset pages
	searchInFlight     = 8   // batches of files handed out and not yet in the result
	searchMaxLineRunes = 200
	searchMaxFileBytes = 1 << 20
)

// searchBudget is how long one search reads files; what it did not reach
// is named in the result. searchCountBudget is how much longer it may list
// directories to count what it did not search. Variables for tests.
var (
	searchBudget      = 10 * time.Second
	searchCountBudget = 2 * time.Second
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
		"path": {"type": "string", "minLength": 1, "maxLength": 4096},
		"offset": {"type": "integer", "minimum": 0, "maximum": 100000}
	}
}`),
	}, checkSearch, runSearch)
}

type searchArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Offset  intArg `json:"offset,omitempty"` // matches to skip, for the next page
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
	s := newSearchRun(ctx, env, root, re, a)
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(rel).Result(), nil
	case err != nil:
		return tools.Fail(tools.CodeInvalidArgs, "path", "cannot access "+rel+": "+errReason(err), ""), nil
	case fi.IsDir():
		err = s.run(rel)
	case fi.Mode().IsRegular() && fi.Size() <= searchMaxFileBytes:
		s.one(rel)
	}
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: s.out.text(s.offset)}, nil
}

func newSearchRun(ctx context.Context, env *tools.Env, root *sandbox.Root, re *regexp.Regexp, a *searchArgs) *searchRun {
	s := &searchRun{ctx: ctx, env: env, root: root, m: newLineMatcher(re), offset: int(a.Offset), limit: searchMaxMatches,
		deadline: time.Now().Add(searchBudget)}
	s.out = newSearchOut(s.offset, s.limit)
	s.out.reread = s.reread
	s.buffered = func(string) bool { return true } // unknown workspace: ask it for every file
	if bw, ok := env.Workspace.(bufferedWorkspace); ok {
		s.buffered = bw.Buffered
	}
	return s
}

// bufferedWorkspace is a [tools.Workspace] that says whether it holds an
// editor buffer for a file (safe for concurrent use). search reads those
// files through ReadFile and every other one straight from the disk
// through directory handles; a Workspace without the method has every
// file read through ReadFile, which is exact but slow.
type bufferedWorkspace interface {
	Buffered(rel string) bool
}

// one searches the single file rel, named by the call.
func (s *searchRun) one(rel string) {
	var buf []byte
	r := s.searchFile(fileJob{rel: rel, via: rel}, &buf)
	s.out.add(&r)
}

// matchLine is one matching line, ready to show.
type matchLine struct {
	n    int
	text string
}

// searchFile reads and searches one file; buf is the worker's buffer.
func (s *searchRun) searchFile(j fileJob, buf *[]byte) fileResult {
	r := fileResult{rel: j.rel, part: j.part}
	if j.dir != nil {
		defer j.dir.release()
	}
	if s.ctx.Err() != nil || time.Now().After(s.deadline) {
		r.unsearched = true
		return r
	}
	b, err := s.read(j, buf)
	if err != nil || len(b) > searchMaxFileBytes || isBinary(b) {
		return r
	}
	r.count, r.lines = s.matches(b, 0, s.limit)
	if r.count > len(r.lines) { // the page may start inside: how to read it again
		r.via, r.ws = j.via, j.dir == nil || s.buffered(j.rel)
	}
	return r
}

// matches counts the matching lines of b and returns those with index in
// [from, to), ready to show.
func (s *searchRun) matches(b []byte, from, to int) (count int, lines []matchLine) {
	s.m.scan(b, func(n int, line []byte) bool {
		if count >= from && count < to {
			lines = append(lines, matchLine{n, cut(strings.TrimSpace(string(line)), searchMaxLineRunes)})
		}
		count++
		return true
	})
	return count, lines
}

// reread returns the matching lines [from, to) of the file r, read again:
// only the one file where a page starts past its first lines is (workers
// keep the first limit matches of a file, so memory does not grow with
// offset). A file that changed since gives what it has now.
func (s *searchRun) reread(r *fileResult, from, to int) []matchLine {
	var b []byte
	var err error
	if r.ws {
		b, err = s.env.Workspace.ReadFile(s.ctx, r.via)
	} else if d, derr := sandbox.OpenDir(s.env.Root, path.Dir(r.rel)); derr == nil {
		b, err = d.ReadFile(path.Base(r.rel), searchMaxFileBytes, nil)
		d.Close()
	} else {
		err = derr
	}
	if err != nil || len(b) > searchMaxFileBytes {
		return nil
	}
	_, lines := s.matches(b, from, to)
	return lines
}

// read returns the content of the job's file: from the directory handle,
// or through the workspace for an open buffer or a symlink's target.
func (s *searchRun) read(j fileJob, buf *[]byte) ([]byte, error) {
	if j.dir != nil && !s.buffered(j.rel) {
		b, err := j.dir.d.ReadFile(j.name, searchMaxFileBytes, *buf)
		*buf = b
		return b, err
	}
	return s.env.Workspace.ReadFile(s.ctx, j.via)
}
