package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/sandbox"
)

// toolCall is one tool call of a run as the client sees it.
type toolCall struct {
	id      sdk.ToolCallId
	tool    string
	kind    sdk.ToolKind
	running bool // guarded by the progress's mu

	mu    sync.Mutex
	title string
	locs  []sdk.ToolCallLocation
	notes []string // what its proposals did, hunk by hunk
}

// toolKinds are the ACP kinds of the built-in tools; MCP tools and the
// rest are "other".
var toolKinds = map[string]sdk.ToolKind{
	"read_file": sdk.ToolKindRead, "list_dir": sdk.ToolKindRead, "sql_query": sdk.ToolKindRead,
	"search": sdk.ToolKindSearch, "edit_file": sdk.ToolKindEdit, "write_file": sdk.ToolKindEdit,
	"run_command": sdk.ToolKindExecute, "http_fetch": sdk.ToolKindFetch,
	agent.SubAgentToolName: sdk.ToolKindThink, "calculator": sdk.ToolKindThink,
}

func toolKind(tool string) sdk.ToolKind {
	if k, ok := toolKinds[tool]; ok {
		return k
	}
	return sdk.ToolKindOther
}

// neverAsks: calls of these kinds are never put to the user.
func neverAsks(k sdk.ToolKind) bool {
	return k == sdk.ToolKindRead || k == sdk.ToolKindSearch || k == sdk.ToolKindThink
}

// about sets the title from what the call acts on (control bytes
// visible) and the locations from its path: the subject of a file tool,
// else a "path" argument inside the workspace.
func (c *toolCall) about(root, subject string, input json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if subject != "" {
		c.title = c.tool + " " + cutRunes(sandbox.Visible(subject), 120)
	}
	path := ""
	switch c.kind {
	case sdk.ToolKindRead, sdk.ToolKindEdit:
		path = subject
	}
	var args struct {
		Path string `json:"path"`
	}
	if path == "" && json.Unmarshal(input, &args) == nil {
		path = args.Path
	}
	if rel, err := sandbox.ResolvePath(root, path); path != "" && err == nil && c.tool != "sql_query" {
		c.locs = []sdk.ToolCallLocation{{Path: filepath.Join(root, filepath.FromSlash(rel))}}
	}
}

// view is the call's title and locations as update options.
func (c *toolCall) view() []sdk.ToolCallUpdateOpt {
	c.mu.Lock()
	defer c.mu.Unlock()
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateTitle(c.title)}
	if len(c.locs) > 0 {
		opts = append(opts, sdk.WithUpdateLocations(append([]sdk.ToolCallLocation(nil), c.locs...)))
	}
	return opts
}

// locate adds a location (a hunk's or a finding's line), in place of
// the same file's location without a line.
func (c *toolCall) locate(l sdk.ToolCallLocation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.locs = slices.DeleteFunc(c.locs, func(o sdk.ToolCallLocation) bool { return o.Path == l.Path && o.Line == nil })
	c.locs = append(c.locs, l)
}

func (c *toolCall) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes = append(c.notes, s)
}

// outcome is the content of a finished call: the command's exit code and
// output, the head and tail of what the model got, what its proposals
// did, and for a failure its code and summary; control bytes visible.
func (c *toolCall) outcome(e agent.Event) string {
	var b strings.Builder
	if e.ExitCode != nil {
		fmt.Fprintf(&b, "exit code %d\n", *e.ExitCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, "%s: %s\n", e.Code, sandbox.VisibleText(e.Message))
	}
	c.mu.Lock()
	for _, n := range c.notes {
		b.WriteString(n + "\n")
	}
	c.mu.Unlock()
	if e.Output != "" && (e.Code == "" || e.ExitCode != nil) {
		b.WriteString(sandbox.VisibleText(e.Output))
	}
	if b.Len() == 0 {
		b.WriteString(sandbox.VisibleText(e.Message))
	}
	return b.String()
}

func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
