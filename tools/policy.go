package tools

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/sandbox/shell"
)

// Profiles name the surfaces a policy can differ by (T13).
const (
	ProfileEditor   = "editor"
	ProfileHeadless = "headless"
	ProfileCI       = "ci"
)

// Rule is one allow / ask / deny rule: a tool (or a risk, or "*") and an
// optional pattern over the call's normalized subject, in the form users
// know from other agents: run_command(go test *), write_file(src/**),
// http_fetch(https://api.github.com/*), risk:network.
type Rule struct {
	Text     string // as written, for audit and `vet`
	Tool     string // tool name or "*"; empty when Risk is set
	Risk     Risk
	Decision Decision
	Source   string // "user", "project" or "default"
	// Origin is where the rule was written, "file:line" (with the
	// profile when it came from one); "" for a built-in default. A
	// decision cites it through [Rule.Where].
	Origin  string
	pattern *regexp.Regexp
}

// Where is the rule's origin for a person: "file:line" or
// "built-in default".
func (r *Rule) Where() string {
	if r.Origin == "" {
		return "built-in default"
	}
	return r.Origin
}

// ParseRule parses one rule string.
func ParseRule(text string, d Decision, source string) (Rule, error) {
	r := Rule{Text: text, Decision: d, Source: source}
	s := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(s, "risk:"); ok {
		r.Risk = Risk(rest)
		switch r.Risk {
		case RiskRead, RiskWrite, RiskExecute, RiskNetwork, RiskMCP, RiskNone:
			return r, nil
		}
		return r, fmt.Errorf("rule %q: unknown risk %q", text, rest)
	}
	name, pat, hasPat := strings.Cut(s, "(")
	if hasPat {
		if !strings.HasSuffix(pat, ")") {
			return r, fmt.Errorf("rule %q: missing ')'", text)
		}
		pat = strings.TrimSuffix(pat, ")")
		if pat == "" {
			return r, fmt.Errorf("rule %q: empty pattern", text)
		}
	}
	if name != "*" && !validToolName(name) {
		return r, fmt.Errorf("rule %q: %q is not a tool name", text, name)
	}
	r.Tool = name
	if hasPat {
		re, err := globRE(pat)
		if err != nil {
			return r, fmt.Errorf("rule %q: %v", text, err)
		}
		r.pattern = re
	}
	return r, nil
}

// globRE compiles a pattern: ** matches anything, * anything but "/" when
// the pattern is a path (has no space and no "://"), anything otherwise;
// ? one character. Everything else is literal.
func globRE(pat string) (*regexp.Regexp, error) {
	pathLike := !strings.ContainsAny(pat, " \t") && !strings.Contains(pat, "://")
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c == '*' && i+1 < len(pat) && pat[i+1] == '*':
			b.WriteString(`.*`)
			i++
		case c == '*' && pathLike:
			b.WriteString(`[^/]*`)
		case c == '*':
			b.WriteString(`.*`)
		case c == '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

func (r *Rule) matches(t *Tool, subject string) bool {
	switch {
	case r.Risk != "":
		return t.Risk == r.Risk
	case r.Tool != "*" && r.Tool != t.Name:
		return false
	}
	return r.pattern == nil || r.pattern.MatchString(subject)
}

// Policy decides allow / ask / deny for a checked call (T5, T13, T14).
type Policy struct {
	Profile string
	Rules   []Rule
	// Risks are the defaults per risk when no rule matches.
	Risks map[Risk]Decision
	// HTTP is the network allowlist for http_fetch; nil means no network.
	HTTP *netguard.Policy
	// ShellRules extend the shell analyser's table; CommandTimeout caps
	// run_command; CommandNetwork lets commands use the network.
	ShellRules []shell.CommandRule
	// ProjectShellRules are the project file's shell rules (ask and deny
	// only), which may only make a command's decision stricter: they are
	// weighed apart from the user's, never instead of them (T20).
	ProjectShellRules []shell.CommandRule
	CommandTimeout    time.Duration
	CommandNetwork    bool
	// ApprovalTimeout bounds each question to the user (T15): commands,
	// file changes and human_confirm alike ([Policy.QuestionTimeout]).
	ApprovalTimeout time.Duration
	// Warnings lists rules and settings that were skipped while loading.
	Warnings []string
}

// DefaultPolicy returns the built-in policy of a profile: reads allowed;
// writes, commands, network and MCP asked in the editor and headless; in
// CI, where nobody can answer, commands, network and MCP are off.
func DefaultPolicy(profile string) *Policy {
	p := &Policy{Profile: profile, ApprovalTimeout: DefaultApprovalTimeout, Risks: map[Risk]Decision{
		RiskRead: Allow, RiskNone: Allow, RiskWrite: Ask, RiskExecute: Ask, RiskNetwork: Ask, RiskMCP: Ask,
	}}
	if profile == ProfileCI {
		p.Risks[RiskExecute], p.Risks[RiskNetwork], p.Risks[RiskMCP] = Deny, Deny, Deny
	}
	return p
}

// Apply copies the policy's tool settings into env.Limits, and the user's
// home directory into env.Home when it is unset.
func (p *Policy) Apply(env *Env) {
	env.Limits = Limits{HTTP: p.HTTP, ShellRules: p.ShellRules, ProjectShellRules: p.ProjectShellRules,
		CommandTimeout: p.CommandTimeout, CommandNetwork: p.CommandNetwork}
	if env.Home == "" {
		env.Home, _ = os.UserHomeDir()
	}
}

// QuestionTimeout is how long the user has to answer each question of a
// run (T15, E7): ApprovalTimeout, or [DefaultApprovalTimeout] when unset.
// The gateway and the editor side both take it from here; no answer in
// time is a deny.
func (p *Policy) QuestionTimeout() time.Duration {
	if p == nil || p.ApprovalTimeout <= 0 {
		return DefaultApprovalTimeout
	}
	return p.ApprovalTimeout
}

// Decide combines the tool's own verdict with the rules: the tool's deny is
// final; then any matching deny rule, then any ask rule, then an allow rule
// (which may lift the tool's ask), then the risk default — never below the
// tool's own verdict. Rules from the project file only narrow (T20): they
// are weighed after the user's and the defaults, and their deny and ask
// count only where they are stricter; a project allow rule counts for
// nothing. A control-file verdict (E15, [Verdict.Control]) is never lifted
// to allow. For run_command the rules match each simple command of the
// line on its own, not the line's text (T19, see decideCommands). It
// returns the decision and the rule that made it.
func (p *Policy) Decide(t *Tool, c *Verdict) (Decision, string) {
	if c.Decision == Deny {
		return Deny, c.Rule
	}
	d, rule := p.decideUser(t, c)
	if pd, prule := p.decideProject(t, c); pd != "" && stricter(pd, d) {
		d, rule = pd, prule
	}
	if c.Control && d == Allow {
		d, rule = Ask, c.Rule
		if rule == "" {
			rule = "path.control_file"
		}
	}
	return d, rule
}

// decideUser is the decision of the user's rules, the risk defaults and
// the tool's own verdict.
func (p *Policy) decideUser(t *Tool, c *Verdict) (Decision, string) {
	if len(c.Commands) > 0 {
		return p.decideCommands(t, c) // run_command: per simple command (T19)
	}
	var ask, allow *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Source == "project" || !r.matches(t, c.Subject) {
			continue
		}
		switch r.Decision {
		case Deny:
			return Deny, "policy: " + r.Text
		case Ask:
			if ask == nil {
				ask = r
			}
		case Allow:
			if allow == nil {
				allow = r
			}
		}
	}
	switch {
	case ask != nil:
		return Ask, "policy: " + ask.Text
	case allow != nil:
		return Allow, "policy: " + allow.Text
	}
	d, ok := p.Risks[t.Risk]
	if !ok {
		d = Ask
	}
	rule := "default: risk " + string(t.Risk)
	if d == Ask && c.Safe && c.Decision == Allow {
		d, rule = Allow, c.Rule
	}
	if stricter(c.Decision, d) {
		d, rule = c.Decision, c.Rule
	}
	return d, rule
}

// decideProject is the strictest of the project's matching deny and ask
// rules, or "" when none matches.
func (p *Policy) decideProject(t *Tool, c *Verdict) (Decision, string) {
	var d Decision
	var rule string
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Source != "project" || r.Decision == Allow || !r.matchesAny(t, c) {
			continue
		}
		if d == "" || stricter(r.Decision, d) {
			d, rule = r.Decision, "policy: "+r.Text
		}
	}
	return d, rule
}

// matchesAny reports whether r matches the call's subject or, for
// run_command, any one of its simple commands (T19).
func (r *Rule) matchesAny(t *Tool, c *Verdict) bool {
	if r.matches(t, c.Subject) {
		return true
	}
	for k := range c.Commands {
		if cmd := &c.Commands[k]; cmd.Kind == shell.KindCommand && r.matches(t, cmd.Text) {
			return true
		}
	}
	return false
}
