package hooks

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Event names a point in a run where hooks run, as in Claude Code.
type Event string

// The events.
const (
	PreToolUse   Event = "PreToolUse"   // before a tool call runs (after policy, before approval)
	PostToolUse  Event = "PostToolUse"  // after a tool call ran
	SessionStart Event = "SessionStart" // when a run starts
	Stop         Event = "Stop"         // when a run ends
)

// Config is the "hooks" object of the user config (or of a project's
// .agentls/hooks.json), in the shape of Claude Code's settings:
//
//	{"PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}
type Config map[Event][]Group

// Group is the hooks of one matcher.
type Group struct {
	// Matcher selects tools by name: "" or "*" is every tool; names
	// joined by | match exactly; anything else is a regular expression
	// over the whole name. Claude Code's names (Bash, Edit, Write, …)
	// stand for agentls's (run_command, edit_file, write_file, …).
	Matcher string    `json:"matcher"`
	Hooks   []Command `json:"hooks"`
	// OnFailure is each of its hooks' OnFailure unless the hook sets its
	// own (Claude Code's SDK sets it on the matcher).
	OnFailure string `json:"onFailure,omitempty"`
}

// Command is one hook command.
type Command struct {
	Type    string `json:"type"` // "command", the only type
	Command string `json:"command"`
	// Timeout is in seconds; zero means [DefaultTimeout].
	Timeout float64 `json:"timeout"`
	// Policy makes the hook a policy hook, which fails closed: a call
	// whose verdict it cannot give (missing, crash, timeout, garbage) is
	// denied. Other hooks are observers and fail open.
	Policy bool `json:"policy"`
	// OnFailure is Claude Code's spelling of the same (A18): "block" makes
	// the hook fail closed, as Policy does; "continue" (or "") leaves it
	// an observer. Any other value is warned about and fails closed:
	// whoever wrote it meant something other than the default.
	OnFailure string `json:"onFailure,omitempty"`
}

// failsClosed reports whether c, in g, is a policy hook, and why not
// plainly when its onFailure value is not one agentls knows.
func (c *Command) failsClosed(g *Group) (closed bool, warning string) {
	of := c.OnFailure
	if of == "" {
		of = g.OnFailure
	}
	switch strings.ToLower(strings.TrimSpace(of)) {
	case "", "continue":
		return c.Policy, ""
	case "block":
		return true, ""
	}
	return true, fmt.Sprintf("onFailure %q is not \"block\" or \"continue\"; it fails closed, as \"block\" does", cut(of))
}

// DefaultTimeout bounds a hook without its own timeout.
const DefaultTimeout = 30 * time.Second

// claudeNames maps Claude Code's tool names, which users' hook configs
// name in matchers, to agentls's tools.
var claudeNames = map[string]string{
	"Bash": "run_command", "Edit": "edit_file", "MultiEdit": "edit_file", "Write": "write_file",
	"Read": "read_file", "Grep": "search", "Glob": "list_dir", "LS": "list_dir", "WebFetch": "http_fetch",
}

// hook is one configured command, ready to run.
type hook struct {
	event   Event
	match   func(tool string) bool
	cmd     string
	timeout time.Duration
	policy  bool
	source  string // "user" or "project"
	// broken is why a policy hook's entry is unusable: it denies every
	// call it could have matched.
	broken string
	// group and command are the hook as configured; verify, when set,
	// says why it must not run now.
	group   Group
	command Command
	verify  func() error
}

// name identifies the hook in logs and the audit record: the source and
// the start of its command.
func (h *hook) name() string {
	c := h.cmd
	if len(c) > 60 {
		c = c[:60] + "…"
	}
	return h.source + " " + strings.ToValidUTF8(c, "?")
}

// compile turns a config into hooks, with a warning for each entry that
// is skipped. A policy hook's broken entry is kept, broken, so that it
// denies: dropping it would fail open.
func compile(cfg Config, source string) (hs []*hook, warnings []string) {
	for event, groups := range cfg {
		switch event {
		case PreToolUse, PostToolUse, SessionStart, Stop:
		default:
			warnings = append(warnings, fmt.Sprintf("%s hooks: unknown event %q skipped", source, cut(string(event))))
			continue
		}
		for gi, g := range groups {
			match, merr := matcher(g.Matcher)
			for _, c := range g.Hooks {
				policy, w := c.failsClosed(&g)
				if w != "" {
					warnings = append(warnings, fmt.Sprintf("%s %s hook %d: %s", source, event, gi+1, w))
				}
				h := &hook{event: event, match: match, cmd: c.Command, policy: policy, source: source,
					timeout: DefaultTimeout, group: g, command: c}
				if c.Timeout > 0 {
					h.timeout = time.Duration(c.Timeout * float64(time.Second))
				}
				var why string
				switch {
				case merr != nil:
					why = fmt.Sprintf("matcher %q: %v", cut(g.Matcher), merr)
				case c.Type != "command":
					why = fmt.Sprintf("type %q is not \"command\"", cut(c.Type))
				case strings.TrimSpace(c.Command) == "":
					why = "no command"
				case c.Timeout < 0:
					why = "negative timeout"
				}
				if why == "" {
					hs = append(hs, h)
					continue
				}
				if h.policy && (event == PreToolUse || event == PostToolUse) {
					h.broken, h.match = why, func(string) bool { return true }
					hs = append(hs, h)
					warnings = append(warnings, fmt.Sprintf("%s %s hook %d: %s; as a policy hook it denies every call", source, event, gi+1, why))
					continue
				}
				warnings = append(warnings, fmt.Sprintf("%s %s hook %d: %s; skipped", source, event, gi+1, why))
			}
		}
	}
	return hs, warnings
}

// plainNames is a matcher that lists tool names.
var plainNames = regexp.MustCompile(`^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$`)

func matcher(m string) (func(string) bool, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return func(string) bool { return true }, nil
	}
	if plainNames.MatchString(m) {
		names := map[string]bool{}
		for _, n := range strings.Split(m, "|") {
			if alias, ok := claudeNames[n]; ok {
				n = alias
			}
			names[n] = true
		}
		return func(tool string) bool { return names[tool] }, nil
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

func cut(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
