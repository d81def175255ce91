// Package importcfg translates the settings users already have for other
// coding agents — Claude Code's settings.json, .claude.json and .mcp.json,
// Codex's config.toml — into agentls's configuration (issue 28): every
// entry it reads is reported as honoured (agentls already behaves so),
// translated (with the agentls form it becomes) or ignored (with why),
// never dropped silently. What translates is collected in a [Plan], which
// [MergePolicy] and [MergeConfig] fold into the user's own policy.json and
// config.json; nothing here writes into a project.
//
// A project's files are untrusted (T20): they can only narrow. Their allow
// rules, hooks, MCP servers and loosening modes are never imported; their
// deny and ask rules may be, since they narrow. Every file is read size-
// capped, without blocking, as a regular file only; text from them is
// returned as it is and must be shown with [sandbox.Visible].
//
// It may import tools and its sub-packages, nothing above them.
package importcfg

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/hooks"
	"github.com/agentls/agentls/tools/mcp"
)

// Status is what became of one entry.
type Status string

// The statuses.
const (
	// Honoured: agentls already behaves so; nothing to write.
	Honoured Status = "honoured"
	// Translated: the entry becomes the agentls configuration in To.
	Translated Status = "translated"
	// Ignored: not imported; Why says why.
	Ignored Status = "ignored"
)

// Entry is one setting of a source file and what became of it.
type Entry struct {
	File string `json:"file"` // the source file, as shown (~/.claude/settings.json)
	Key  string `json:"key"`  // where in it: permissions.allow[0], hooks.PreToolUse[0].hooks[1]
	// Value is the entry as written, shortened; secrets (env and header
	// values) are never copied here. Untrusted: show with sandbox.Visible.
	Value  string   `json:"value,omitempty"`
	Status Status   `json:"status"`
	To     []string `json:"to,omitempty"` // the agentls form, for Translated
	Why    string   `json:"why,omitempty"`
}

// File is one source file and whether it could be read.
type File struct {
	Path  string `json:"path"`            // as shown
	State string `json:"state"`           // "read", "missing" or "unreadable"
	Error string `json:"error,omitempty"` // why unreadable; never the file's content
}

// Report is the outcome of one import: the files, their entries, and what
// --write would write.
type Report struct {
	Source  string  `json:"source"` // "claude" or "codex"
	Files   []File  `json:"files"`
	Entries []Entry `json:"entries"`
	Plan    Plan    `json:"-"`
}

// Plan is the agentls configuration an import translates to: rules and
// settings for the user's policy.json, model settings, hooks and MCP
// servers for the user's config.json.
type Plan struct {
	Allow, Ask, Deny []string
	Risks            map[string]string // risk -> decision
	HTTPAllow        []string          // http.allow entries (origins)
	ShellNetwork     bool              // shell.network
	Model, BaseURL   string
	Hooks            hooks.Config
	MCPServers       map[string]mcp.ServerConfig
}

// Empty reports whether p has nothing to write.
func (p *Plan) Empty() bool {
	return len(p.Allow)+len(p.Ask)+len(p.Deny)+len(p.Risks)+len(p.HTTPAllow)+len(p.Hooks)+len(p.MCPServers) == 0 &&
		!p.ShellNetwork && p.Model == "" && p.BaseURL == ""
}

func (p *Plan) rule(d tools.Decision, rule string) {
	list := map[tools.Decision]*[]string{tools.Allow: &p.Allow, tools.Ask: &p.Ask, tools.Deny: &p.Deny}[d]
	if list != nil && !slices.Contains(*list, rule) {
		*list = append(*list, rule)
	}
}

func (p *Plan) risk(risk, d string) {
	if p.Risks == nil {
		p.Risks = map[string]string{}
	}
	if old, ok := p.Risks[risk]; !ok || stricter(d, old) {
		p.Risks[risk] = d
	}
}

func (p *Plan) server(name string, c mcp.ServerConfig) {
	if p.MCPServers == nil {
		p.MCPServers = map[string]mcp.ServerConfig{}
	}
	p.MCPServers[name] = c
}

func stricter(a, b string) bool {
	rank := map[string]int{"allow": 0, "ask": 1, "deny": 2}
	return rank[a] > rank[b]
}

// Env says where the source files are: the user's home (and the
// variables that move the tools' directories) and the workspace root.
type Env struct {
	Home string // the user's home directory
	Root string // the workspace root, absolute; "" for none
	// ClaudeDir is $CLAUDE_CONFIG_DIR, CodexDir $CODEX_HOME; "" means
	// ~/.claude and ~/.codex.
	ClaudeDir, CodexDir string
}

// Size caps of the source files. ~/.claude.json holds Claude Code's state
// (history per project) besides its MCP servers, and grows large.
const (
	maxSettings   = sandbox.MaxConfigBytes
	maxClaudeJSON = 16 << 20
)

// maxValue bounds the text of an entry copied into a report.
const maxValue = 200

// reader reads the source files of one import and records them.
type reader struct {
	r    *Report
	home string
}

// user reads the user's file at path, which may be a symlink anywhere (a
// dotfiles checkout); ok is false when it is missing or unreadable, which
// the report records.
func (rd *reader) user(path string, max int64) (data []byte, shown string, ok bool) {
	shown = rd.show(path)
	data, err := sandbox.ReadRegularFile(path, max)
	return data, shown, rd.record(shown, err)
}

// project reads rel inside the workspace root as untrusted configuration:
// a regular file inside the root only (T20).
func (rd *reader) project(root, rel string) (data []byte, shown string, ok bool) {
	shown = rel + " (project)"
	if root == "" {
		return nil, shown, false
	}
	data, err := sandbox.ReadConfigFile(root, rel, maxSettings)
	return data, shown, rd.record(shown, err)
}

func (rd *reader) record(shown string, err error) bool {
	switch {
	case err == nil:
		rd.r.Files = append(rd.r.Files, File{Path: shown, State: "read"})
		return true
	case errors.Is(err, fs.ErrNotExist):
		rd.r.Files = append(rd.r.Files, File{Path: shown, State: "missing"})
	default:
		rd.r.Files = append(rd.r.Files, File{Path: shown, State: "unreadable", Error: err.Error()})
	}
	return false
}

// damaged marks the file shown, read but not understood, as unreadable:
// none of its entries is imported, and the others go on.
func (rd *reader) damaged(shown string, err error) {
	for i := range rd.r.Files {
		if f := &rd.r.Files[i]; f.Path == shown {
			f.State, f.Error = "unreadable", err.Error()
		}
	}
}

// show is path for a person: under the home directory as ~/….
func (rd *reader) show(path string) string {
	if rd.home != "" {
		if rel, err := filepath.Rel(rd.home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}

func (rd *reader) add(e Entry) { rd.r.Entries = append(rd.r.Entries, e) }

// ignore reports key's value v in o as ignored, saying why ("not an
// object", "not a list of hooks").
func (rd *reader) ignore(o origin, key string, v any, why string) {
	rd.add(Entry{File: o.shown, Key: key, Value: describe(v), Status: Ignored, Why: why})
}

// short is s cut to maxValue bytes (valid UTF-8 kept), for a report.
func short(s string) string {
	if len(s) > maxValue {
		s = s[:maxValue] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// describe shows a JSON or TOML value in a report: strings as they are,
// anything else by its kind.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return short(v)
	case bool:
		return fmt.Sprint(v)
	case float64, int64, int, uint64:
		return fmt.Sprint(v)
	case nil:
		return "null"
	case map[string]any:
		return fmt.Sprintf("{%d keys}", len(v))
	case []any:
		return fmt.Sprintf("[%d entries]", len(v))
	}
	return fmt.Sprintf("(%T)", v)
}

// keyPart is a map key on a report's key path: keys come from the file.
func keyPart(k string) string {
	if k == "" || strings.ContainsAny(k, ".[] \"") {
		return fmt.Sprintf("%q", short(k))
	}
	return short(k)
}

func join(path, k string) string {
	if path == "" {
		return keyPart(k)
	}
	return path + "." + keyPart(k)
}

// Counts are the entries by status.
func (r *Report) Counts() map[Status]int {
	n := map[Status]int{}
	for _, e := range r.Entries {
		n[e.Status]++
	}
	return n
}

// secretArg finds what looks like a credential in a command line or URL
// copied into a report: the value after token=, --api-key, Bearer and the
// like.
var secretArg = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((?:[\w-]*(?:token|secret|password|passwd|api[_-]?key|auth)[\w-]*\s*[=:]\s*)|(?:--?[\w-]*(?:token|secret|password|api[_-]?key)[\w-]*\s+)|(?:bearer\s+))((?:bearer\s+)?(?:"[^"]*"|'[^']*'|[^\s&"']+))`)
}) // compiled on first use (TestInit_Issue16)

// masked is s, shortened, with what looks like a credential replaced by
// ***: a report may be pasted where others read it.
func masked(s string) string {
	return short(secretArg().ReplaceAllString(s, "${1}***"))
}
