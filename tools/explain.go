package tools

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// "Why was I (not) asked?" (E21, issue 28): every call the gateway
// decides gets an [Explanation] — the decision, the rule that made it and
// where that rule was written, who let the call run, and one plain
// sentence. The gateway puts it on the call's [Result] and in the audit
// log; the agent's session keeps it per step of a run; `agentls why`,
// `agentls vet` and the headless client's --explain print it with
// [Explanation.Lines], the one formatter.

// The kinds of origin a decision has ([Explanation.Source]).
const (
	SourcePolicy      = "policy"       // a rule of a policy file
	SourceProfile     = "profile"      // a rule of a policy file's profile section
	SourceDefault     = "default"      // a built-in rule
	SourceRiskDefault = "risk_default" // the profile's default for the tool's risk
	SourceTool        = "tool"         // the tool's own check (path, shell, SQL, URL analysis)
	SourceControl     = "control_file" // E15: a control file is always asked
	SourceGateway     = "gateway"      // the run refused it before any rule (unknown tool, bad arguments, read-only run)
	SourceHook        = "hook"         // the user's PreToolUse hook
)

// Who let a call run ([Explanation.ApprovedBy], the audit's approved_by).
// A kept "always" answer is "always:" and its scope; the user's "always"
// answer now is "user(always:" scope ")".
const (
	ByPolicy = "policy" // allowed without asking
	ByUser   = "user"   // the user approved this call
	ByDiff   = "diff"   // the user applied the proposed change in the editor
	ByFlag   = "flag"   // a flag answered yes for the user (headless --approve=all)
)

// byAlways is approved_by for a call an earlier "always" answer at scope
// covered; byUserAlways for the user's "always" answer now.
func byAlways(s Scope) string     { return "always:" + string(s) }
func byUserAlways(s Scope) string { return "user(always:" + string(s) + ")" }

// Explanation says why one call was allowed, asked or denied. It holds
// no arguments and no file content: the subject (as the approval shows
// it), rule texts and file names.
type Explanation struct {
	// Step is the call's number in its run, from 1, and Turn the model
	// turn; both 0 outside a run (vet).
	Step int    `json:"step,omitempty"`
	Turn int    `json:"turn,omitempty"`
	Tool string `json:"tool"`
	// Subject is what the call touches: a path, a command line, a URL.
	Subject string `json:"subject,omitempty"`
	// Decision is what the policy decided before anyone was asked.
	Decision Decision `json:"decision"`
	// Rule is the rule that decided: a policy rule as written
	// ("run_command(go test *)"), "risk execute", or a check's rule ID
	// ("path.outside_root").
	Rule string `json:"rule,omitempty"`
	// Source is the kind of origin (SourcePolicy …) and Origin where, for
	// a person: "FILE:LINE", "FILE:LINE (profile ci)", "built-in default
	// of profile headless", "run_command's own check".
	Source  string `json:"source"`
	Origin  string `json:"origin"`
	Profile string `json:"profile,omitempty"`
	// ApprovedBy is who let the call run: policy, user, diff,
	// user(always:SCOPE) or always:SCOPE (an earlier "always" answer);
	// "" when it did not run or nobody approved it.
	ApprovedBy string `json:"approved_by,omitempty"`
	// Grant is the ID of the kept "always" answer that covered the call
	// (`agentls policy list`); "" for one this process keeps in memory.
	Grant string `json:"grant,omitempty"`
	// Code is the refusal's code when the call did not run or failed.
	Code Code `json:"code,omitempty"`
	// Because is the sentence: "asked because …", "allowed because …",
	// "denied because …".
	Because string `json:"because"`
	// Outcome says what became of the call after the decision: the user
	// declined, nobody answered, it ran; "" from vet.
	Outcome string `json:"outcome,omitempty"`

	audit string // Because without the subject and the reason, for the audit log
}

// explain is the explanation of a prepared call: the decision and why.
// by and grant are who approved it (empty from vet, or when nobody did).
func (r *Gateway) explain(name string, p *prepared) *Explanation {
	pol := r.opts.Policy
	v := &p.verdict
	e := &Explanation{Tool: name, Subject: cut(v.Subject, 300), Decision: v.Decision, Profile: pol.Profile, Code: v.Code}
	rule := v.Rule
	verb := string(v.Decision)
	switch v.Decision {
	case Allow:
		verb = "allowed"
	case Ask:
		verb = "asked"
	case Deny:
		verb = "denied"
	}
	risk := Risk("")
	if p.tool != nil {
		risk = p.tool.Risk
	}
	switch {
	case strings.HasPrefix(rule, "policy: "):
		text := strings.TrimPrefix(rule, "policy: ")
		e.Rule, e.Source, e.Origin = text, SourcePolicy, "a policy file"
		if pr := pol.ruleFor(p.tool, v, text); pr != nil {
			e.Origin = pr.Where()
			switch {
			case pr.Origin == "":
				e.Source = SourceDefault
			case strings.Contains(pr.Origin, "(profile "):
				e.Source = SourceProfile
			}
			if pr.Source == "project" {
				e.Origin += " (the project's file, which can only narrow)"
			}
		}
		e.Because = fmt.Sprintf("%s because the policy rule %s %s, written at %s, matches %s", verb, v.Decision, text, e.Origin, subjectMark)
	case v.Control && v.Decision == Ask:
		// E15 asks whatever the risk default or the tool's check said.
		e.Rule, e.Source, e.Origin = rule, SourceControl, "control file (E15)"
		e.Because = fmt.Sprintf("%s because %s changes a control file (E15): editors, shells or git run it outside the sandbox, so it is asked every time and no rule or \"always\" answer lifts it",
			verb, subjectMark)
	case strings.HasPrefix(rule, "default: risk "):
		k := Risk(strings.TrimPrefix(rule, "default: risk "))
		e.Rule, e.Source = "risk "+string(k), SourceRiskDefault
		if d, ok := DefaultPolicy(pol.Profile).Risks[k]; ok && d == pol.Risks[k] {
			e.Origin = "built-in risk default of profile " + pol.Profile
		} else {
			e.Origin = `the "risks" setting of a policy file (profile ` + pol.Profile + ")"
		}
		e.Because = fmt.Sprintf("%s because %s has risk %s, no policy rule matches %s, and the %s for %s is %s",
			verb, name, k, subjectMark, e.Origin, k, v.Decision)
	case strings.HasPrefix(rule, "hook: "):
		e.Rule, e.Source, e.Origin = strings.TrimPrefix(rule, "hook: "), SourceHook, "the user's hooks"
		e.Because = verb + " because " + reasonOf(v)
	case strings.HasPrefix(rule, "run.") || strings.HasPrefix(rule, "gateway."):
		e.Rule, e.Source, e.Origin = rule, SourceGateway, "the gateway ("+rule+")"
		e.Because = verb + " because " + cmp.Or(reasonOf(v), "the gateway refused the call")
	default:
		e.Rule, e.Source, e.Origin = rule, SourceTool, name+"'s own check"
		if rule == "shell.user_rule" {
			e.Source, e.Origin = SourcePolicy, `the "shell" commands of a policy file`
		}
		switch {
		case v.Decision == Allow && risk != "" && pol.riskDecision(risk) != Allow:
			e.Because = fmt.Sprintf("allowed because %s (%s) found %s safe to run without asking, which lifts the %s risk default (%s)",
				e.Origin, cmp.Or(rule, "no rule"), subjectMark, risk, pol.riskDecision(risk))
		case v.Reason != "" && v.Decision != Allow:
			e.Because = fmt.Sprintf("%s because %s (%s) says: %s", verb, e.Origin, cmp.Or(rule, "no rule"), reasonOf(v))
		default:
			e.Because = fmt.Sprintf("%s because %s (%s) decided %s", verb, e.Origin, cmp.Or(rule, "no rule"), v.Decision)
		}
	}
	if v.Decision == Deny && v.Code != "" && !strings.Contains(e.Because, string(v.Code)) {
		e.Because += " (" + string(v.Code) + ")"
	}
	// The audit log never holds what the call was about (T10): its
	// sentence names the tool instead of the subject and leaves out the
	// check's reason, which may quote it.
	fill := func(s, subject, reason string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, subjectMark, subject), reasonMark, reason)
	}
	e.audit = fill(e.Because, "the "+name+" call", "its reason is in the run's record")
	e.Because = fill(e.Because, what(name, v.Subject), strings.TrimSuffix(v.Reason, "."))
	return e
}

// The places of the subject and of the check's reason in a sentence
// being made; the session's record and the views get them, the audit log
// does not.
const (
	subjectMark = "\x00subject\x00"
	reasonMark  = "\x00reason\x00"
)

// reasonOf is the mark of v's reason, "" when it has none.
func reasonOf(v *Verdict) string {
	if v.Reason == "" {
		return ""
	}
	return reasonMark
}

// ruleFor is the rule whose text decided the call: the first rule of
// that text and decision that matches it, the user's before the
// project's, as [Policy.Decide] weighs them.
func (p *Policy) ruleFor(t *Tool, v *Verdict, text string) *Rule {
	if t == nil {
		return nil
	}
	var project *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Text != text || r.Decision != v.Decision || !r.matchesAny(t, v) {
			continue
		}
		if r.Source != "project" {
			return r
		}
		if project == nil {
			project = r
		}
	}
	return project
}

// riskDecision is the profile's default for risk k.
func (p *Policy) riskDecision(k Risk) Decision {
	if d, ok := p.Risks[k]; ok {
		return d
	}
	return Ask
}

// what names the call's subject for a sentence.
func what(tool, subject string) string {
	if subject == "" {
		return "the " + tool + " call"
	}
	return fmt.Sprintf("%q", cut(subject, 120))
}

// approvedBy fills in who let the call run and what became of it.
func (e *Explanation) approvedBy(by, grant string, res *Result) {
	e.ApprovedBy, e.Grant = by, grant
	if res.IsError && e.Code == "" {
		e.Code = res.Code
	}
	switch {
	case res.declinedByFlag && res.Code == CodeApprovalDenied:
		e.Outcome = "declined by the --approve=never flag, without a question to a person"
	case res.Code == CodeApprovalDenied && e.Decision != Deny && res.UserReason != "":
		e.Outcome = "the user declined it: " + cut(res.UserReason, 300)
	case res.Code == CodeApprovalDenied && e.Decision != Deny && strings.Contains(res.Content, "nobody answered"):
		e.Outcome = "nobody answered the question in time, so it did not run"
	case res.Code == CodeApprovalDenied && e.Decision != Deny:
		e.Outcome = "the user declined it"
	case res.Code == CodeApprovalRequired:
		e.Outcome = "nobody could be asked here, so it did not run"
	case res.Code == CodeCancelled:
		e.Outcome = "the run was cancelled"
	case e.Decision == Deny:
		e.Outcome = "it did not run"
	case by == ByPolicy:
		e.Outcome = "it ran without asking"
	case by == ByUser:
		e.Outcome = "the user approved it"
	case by == ByFlag:
		e.Outcome = "approved by the --approve=all flag, without a question to a person"
	case by == ByDiff && !res.IsError:
		e.Outcome = "the user applied the proposed change"
	case by == ByDiff:
		e.Outcome = "the proposed change was not applied"
	case strings.HasPrefix(by, "user(always:"):
		e.Outcome = "the user approved it and said always, for the " + strings.TrimSuffix(strings.TrimPrefix(by, "user(always:"), ")")
	case strings.HasPrefix(by, "always:"):
		e.Outcome = "an earlier \"always\" answer (" + strings.TrimPrefix(by, "always:") + " scope"
		if grant != "" {
			e.Outcome += ", allowance " + grant
		}
		e.Outcome += ") covers it, so the user was not asked again"
	case res.IsError:
		e.Outcome = "it did not complete (" + string(res.Code) + ")"
	}
}

// ByWho says for a person who approved_by names.
func ByWho(by, grant string) string {
	switch {
	case by == "":
		return "nobody (it did not run)"
	case by == ByPolicy:
		return "the policy (no question)"
	case by == ByUser:
		return "the user"
	case by == ByFlag:
		return "the --approve=all flag (headless), for the user"
	case by == ByDiff:
		return "the user, by applying the proposed change"
	case strings.HasPrefix(by, "user(always:"):
		return "the user, answering \"always\" for the " + strings.TrimSuffix(strings.TrimPrefix(by, "user(always:"), ")")
	case strings.HasPrefix(by, "always:"):
		s := "an \"always\" answer kept for the " + strings.TrimPrefix(by, "always:")
		if grant != "" {
			s += " (allowance " + grant + ", agentls policy list)"
		} else {
			s += " (kept in memory)"
		}
		return s
	}
	return by
}

// Lines is the explanation for a person: a head line (step, tool,
// subject), then the decision, where its rule comes from, who approved
// and what became of it, and the sentence. Text from the model and the
// repository has its control characters made visible (T22).
func (e *Explanation) Lines() []string {
	v := sandbox.Visible
	head := v(e.Tool)
	if e.Subject != "" {
		head += " " + v(e.Subject)
	}
	if e.Step > 0 {
		head = fmt.Sprintf("step %d (turn %d): %s", e.Step, e.Turn, head)
	}
	rule := e.Rule
	if rule == "" {
		rule = "none"
	}
	lines := []string{
		head,
		fmt.Sprintf("  decision: %s, by %s", v(string(e.Decision)), v(rule)),
		fmt.Sprintf("  from:     %s", v(e.Origin)),
	}
	if e.Profile != "" && !strings.Contains(e.Origin, "profile") {
		lines[2] += fmt.Sprintf(" [profile %s]", v(e.Profile))
	}
	if e.Outcome != "" || e.ApprovedBy != "" {
		lines = append(lines, "  approved: "+v(ByWho(e.ApprovedBy, e.Grant)))
	}
	if e.Outcome != "" {
		lines = append(lines, "  outcome:  "+v(e.Outcome))
	}
	return append(lines, "  "+v(e.Because))
}

// String is [Explanation.Lines] joined, with a final newline.
func (e *Explanation) String() string { return strings.Join(e.Lines(), "\n") + "\n" }
