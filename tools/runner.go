package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxResultChars bounds what one tool result may put into the conversation.
const MaxResultChars = 30000

// MaxArgsBytes bounds the arguments of one call, checked before they are
// parsed: above the largest a schema allows (1 MiB of text, JSON-escaped).
const MaxArgsBytes = 4 << 20

// gatewayConfig is what a [Gateway] runs with, after [NewGateway]
// resolved its [GatewayOptions].
type gatewayConfig struct {
	// Allowed are the tool names offered to the model in this run. The
	// runner refuses every other name, registered or not.
	Allowed []string
	// Withheld are tools left out of this run because they cannot be used
	// in it, each with why ([GatewayOptions.Withheld]).
	Withheld map[string]string
	// ReadOnly refuses every tool whose risk is not read or none, even when
	// it is in Allowed: the fallback layer of a plan run (E4).
	ReadOnly bool
	// Timeout bounds the execution of one call; zero means 2 minutes. The
	// time the call waits for the user ([AwaitUser]: its approval, an edit
	// question, a pending applyEdit) does not count: questions are bounded
	// by the policy's approval timeout alone.
	Timeout time.Duration
	// Policy decides allow / ask / deny and bounds every question to the
	// user ([Policy.QuestionTimeout]); nil means the editor defaults.
	Policy *Policy
	// Approver answers every question of the run: asks of the policy,
	// human_confirm, and file changes a proposer cannot show. It is the
	// only place an Approver is given to the gateway; nil turns every ask
	// into approval_required.
	Approver Approver
	// Allowances remembers "always allow" answers across runs.
	Allowances *Allowances
	// Audit receives one record per decision; nil discards.
	Audit *AuditLog
	// Hooks run the user's PreToolUse and PostToolUse hooks around every
	// call (A13); nil runs none.
	Hooks     Hooks
	SessionID string
	Logger    *slog.Logger
}

// Gateway is the validation gateway: the single entry point through which
// the agent runs a tool call. Every call passes the same steps in the same
// order, cheapest refusals first: T2 registered tool, T1 parse, T3 schema,
// E4 read-only run, T4-T6 the tool's check (normalize, sandbox policy,
// preview), T5 policy rules, T7 approval, T8 execution, T9 result checks,
// T10 audit. PreToolUse hooks run after policy and before approval (a
// hook can refuse what the policy let through, never let through what it
// refused, and the user is not asked about a call a hook blocks);
// PostToolUse hooks run after the result checks.
type Gateway struct {
	reg  *Registry
	env  *Env
	opts gatewayConfig
	log  *slog.Logger
	ask  *approvals
}

// newGateway returns a gateway over reg for one run in env.
func newGateway(reg *Registry, env *Env, opts *gatewayConfig) *Gateway {
	r := &Gateway{reg: reg, env: env}
	if r.env == nil {
		r.env = &Env{}
	}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Timeout <= 0 {
		r.opts.Timeout = 2 * time.Minute
	}
	if r.opts.Policy == nil {
		r.opts.Policy = DefaultPolicy(ProfileEditor)
	}
	r.log = r.opts.Logger
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.ask = &approvals{approver: r.opts.Approver, timeout: r.opts.Policy.QuestionTimeout(), session: r.opts.Allowances,
		root: realRoot(r.env.Root), id: r.opts.SessionID, log: r.log}
	return r
}

// Tools returns the tools offered to the model in this run.
func (r *Gateway) Tools() []*Tool {
	ts := r.reg.Select(r.opts.Allowed)
	out := ts[:0:0]
	for _, t := range ts {
		if t.Available == nil || t.Available() {
			out = append(out, t)
		}
	}
	return out
}

// prepared is a call that passed or failed the steps up to policy.
type prepared struct {
	tool    *Tool
	args    []byte
	verdict Verdict
	refusal *ToolError // set when the verdict is deny
}

// Vet runs every step up to and including policy, without side effects.
func (r *Gateway) Vet(ctx context.Context, name, args string) Verdict {
	return r.prepare(ctx, name, args).verdict
}

// VetExplain is [Gateway.Vet] with the decision's explanation (E21):
// what a run would record for the call before anyone is asked.
func (r *Gateway) VetExplain(ctx context.Context, name, args string) (Verdict, *Explanation) {
	p := r.prepare(ctx, name, args)
	return p.verdict, r.explain(name, &p)
}

// Call runs one tool call and returns its result. It returns a Go error
// only when ctx is done; every other failure is an error Result.
func (r *Gateway) Call(ctx context.Context, name, args string) (Result, error) {
	start := time.Now()
	p := r.preHooks(ctx, name, r.prepare(ctx, name, args))
	rec := &AuditRecord{Time: start, Session: r.opts.SessionID, Tool: name, Rule: p.verdict.Rule,
		Decision: p.verdict.Decision, ArgsSHA256: hashArgs(name, p.verdict.Subject, p.args)}
	if p.tool != nil {
		rec.Risk = p.tool.Risk
	}
	res, ran, err := r.execute(ctx, p, rec)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if ran && err == nil {
		res = r.postHooks(ctx, name, p, res)
	}
	if res.IsError {
		rec.Code = res.Code
	}
	rec.UserReason = res.UserReason // also the reasons for rejected hunks of an applied edit (issue 28)
	switch {
	case res.Code == CodeApprovalDenied, res.Code == CodeApprovalRequired, res.Code == CodeCancelled:
		rec.ApprovedBy = "" // nobody approved it
	case rec.ApprovedBy == ByDiff && res.IsError:
		rec.ApprovedBy = "" // the change was not applied
	}
	// E21: why it was allowed, asked or denied, for the run's step and
	// the audit log.
	ex := r.explain(name, &p)
	ex.approvedBy(rec.ApprovedBy, rec.Grant, &res)
	rec.Source, rec.Origin, rec.Because = ex.Source, ex.Origin, ex.audit
	res.Explain = ex
	rec.ProposedSHA256, rec.AppliedSHA256 = res.ProposedSHA256, res.AppliedSHA256
	if res.Subject == "" {
		res.Subject = cut(p.verdict.Subject, 300)
	}
	rec.DurationMS = int64((time.Since(start) + time.Millisecond - 1) / time.Millisecond)
	r.opts.Audit.Record(rec)
	r.log.Info("Tool call", slog.String("tool", name), slog.String("decision", string(rec.Decision)),
		slog.String("rule", rec.Rule), slog.String("result", string(res.Code)), slog.Duration("took", time.Since(start)))
	return res, err
}

// refused is a call that ends before it runs, refused by e.
func refused(t *Tool, e *ToolError) prepared {
	return prepared{tool: t, verdict: *e.Verdict(), refusal: e}
}

// prepare runs the steps of a call up to policy, cheapest refusals first.
func (r *Gateway) prepare(ctx context.Context, name, args string) prepared {
	e, refusal := r.offered(name)
	if refusal != nil {
		return *refusal
	}
	t := e.tool
	raw, refusal := parseArgs(e, args)
	if refusal != nil {
		return *refusal
	}
	// E4 fallback: nothing but reads in a read-only run.
	if r.opts.ReadOnly && !readOnlyRisk(t.Risk) {
		return refused(t, &ToolError{Code: CodeReadOnlyRun, Reason: fmt.Sprintf("%s changes files; this run is read-only", name),
			Rule: "run.read_only"})
	}
	return r.decide(ctx, t, raw)
}

// offered is T2: the registered tool name, if this run offers it.
func (r *Gateway) offered(name string) (*entry, *prepared) {
	e, ok := r.reg.lookup(name)
	if ok && slices.Contains(r.opts.Allowed, name) {
		return e, nil
	}
	var p prepared
	switch why, withheld := r.opts.Withheld[name]; {
	case withheld:
		var t *Tool
		if ok {
			t = e.tool
		}
		p = refused(t, &ToolError{Code: CodeUnavailable, Reason: fmt.Sprintf("%s is not offered in this run: %s", name, why),
			Recovery: "use only " + strings.Join(r.allowedNames(), ", "), Rule: "run.not_offered", Subject: name})
	case ok && r.opts.ReadOnly && !readOnlyRisk(e.tool.Risk):
		p = refused(e.tool, &ToolError{Code: CodeReadOnlyRun, Reason: fmt.Sprintf("%s changes files; this run is read-only", name),
			Recovery: "use only " + strings.Join(r.allowedNames(), ", "), Rule: "run.read_only"})
	default:
		p = refused(nil, &ToolError{Code: CodeUnknownTool, Reason: fmt.Sprintf("no tool named %q", cut(name, 64)),
			Recovery: "available tools: " + strings.Join(r.allowedNames(), ", "), Rule: "gateway.unknown_tool"})
	}
	return nil, &p
}

// parseArgs is T1 and T3: the arguments, within the size limit, are one
// JSON object that the tool's schema accepts. It returns them trimmed.
func parseArgs(e *entry, args string) ([]byte, *prepared) {
	t := e.tool
	refuse := func(te *ToolError) ([]byte, *prepared) {
		p := refused(t, te)
		return nil, &p
	}
	if len(args) > MaxArgsBytes {
		return refuse(&ToolError{Code: CodeResourceLimit, Reason: fmt.Sprintf("the arguments have %d bytes; the limit is %d", len(args), MaxArgsBytes),
			Recovery: "send smaller arguments: split the work into several calls", Rule: "gateway.args_size"})
	}
	// T1: the arguments are one JSON object.
	raw := []byte(strings.TrimSpace(args))
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil { // also refuses trailing data
		return refuse(&ToolError{Code: CodeInvalidArgs, Reason: "arguments are not valid JSON",
			Recovery: "send one JSON object matching the schema: " + compactSchema(t.Schema), Rule: "gateway.parse"})
	}
	if _, isObj := inst.(map[string]any); !isObj {
		return refuse(&ToolError{Code: CodeInvalidArgs, Reason: "arguments must be a JSON object",
			Recovery: "send one JSON object matching the schema: " + compactSchema(t.Schema), Rule: "gateway.parse"})
	}
	// T3: schema.
	sch, err := e.schema.compiled()
	if err != nil {
		return refuse(&ToolError{Code: CodeInternal, Reason: "the tool's schema does not compile: " + cut(err.Error(), 200),
			Recovery: "use another tool", Rule: "gateway.schema"})
	}
	if err := sch.Validate(inst); err != nil {
		field, reason := describeSchemaError(err)
		return refuse(&ToolError{Code: CodeInvalidArgs, Field: field, Reason: reason, Recovery: "fix the argument and call again",
			Rule: "gateway.schema"})
	}
	return raw, nil
}

// decide is T4-T6 and T5: the tool's own check (normalize, sandbox
// policy, preview), then the policy's rules and defaults.
func (r *Gateway) decide(ctx context.Context, t *Tool, raw []byte) prepared {
	c := &Verdict{Decision: Allow, Rule: "tool.no_check"}
	if t.Check != nil {
		got, err := t.Check(ctx, r.env, raw)
		if err != nil || got == nil {
			// A check that cannot decide fails closed.
			return refused(t, &ToolError{Code: CodeInternal, Reason: "the call could not be checked", Rule: "gateway.check_failed"})
		}
		c = got
	}
	p := prepared{tool: t, args: raw}
	d, rule := r.opts.Policy.Decide(t, c)
	p.verdict = Verdict{Decision: d, Rule: rule, Subject: c.Subject, Preview: c.Preview, Reason: c.Reason, Control: c.Control,
		Commands: c.Commands} // Commands: a part no rule lifts is never "always" (E21)
	if d != Deny {
		return p
	}
	recovery := "do not retry this call; choose another way or ask the user"
	if c.Decision == Deny { // the tool's own deny: its code, field and reason
		p.verdict.Code, p.verdict.Field = c.Code, c.Field
		if p.verdict.Code == "" {
			p.verdict.Code = CodeApprovalDenied
		}
		switch {
		case c.Recovery != "":
			recovery = c.Recovery
		case p.verdict.Code == CodePathOutsideRoot:
			recovery = "use a path inside the workspace, relative to its root"
		case p.verdict.Code == CodeProtectedPath:
			recovery = "leave agentls' policy and configuration to the user; change the project's files only"
		}
	} else { // denied by a policy rule or risk default
		p.verdict.Code, p.verdict.Reason = deniedCode(t.Risk), "denied by policy"
	}
	p.refusal = p.verdict.Refusal(recovery)
	return p
}

// deniedCode is the code of a policy deny for a risk.
func deniedCode(k Risk) Code {
	switch k {
	case RiskExecute:
		return CodeCommandDenied
	case RiskNetwork:
		return CodeHostNotAllowed
	}
	return CodePolicyDenied
}

// execute runs the approval and execution steps of a prepared call; ran
// reports whether the tool ran.
func (r *Gateway) execute(ctx context.Context, p prepared, rec *AuditRecord) (res Result, ran bool, err error) {
	if p.refusal != nil {
		return p.refusal.Result(), false, nil
	}
	t := p.tool
	env := *r.env // this call's copy, with what the gateway decided about it
	env.Call = Call{Control: p.verdict.Control, Asker: r.ask}
	// T8's time limit runs from here; every question stops it (AwaitUser).
	limit := r.callLimit(t)
	cctx, cancel := withExecLimit(ctx, limit)
	defer cancel()
	defer func() { rec.WaitMS = cctx.waitedFor().Milliseconds() }()
	switch {
	case p.verdict.Decision == Allow && !p.verdict.Control:
		rec.ApprovedBy = ByPolicy
		env.Call.Preapproved = t.Risk == RiskWrite
	case t.Risk == RiskWrite:
		// T7 for writes is the diff the user approves in the editor (E6),
		// or the gateway's question for a proposer that shows nothing.
		rec.ApprovedBy = ByDiff
	default:
		by, grant, refusal := r.ask.call(cctx, t, &p.verdict)
		if refusal != nil {
			res := refusal.Result()
			res.declinedByFlag = by == ByFlag
			return res, false, nil
		}
		rec.ApprovedBy, rec.Grant = by, grant
		env.Call.UserApproved = by == ByUser || by == ByFlag || strings.HasPrefix(by, "user(always:")
		env.Call.SessionApproved = ApprovedAlways(by)
	}
	// T8: run, bounded in time, with panics contained.
	res, err = r.run(cctx, t, &env, p.args)
	if err != nil {
		if ctx.Err() != nil {
			return Fail(CodeCancelled, "", "the run was cancelled before the call finished", ""), true, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Fail(CodeTimeout, "", fmt.Sprintf("%s did not finish in %s", t.Name, limit), "narrow the request"), true, nil
		}
		r.log.Error("Tool infrastructure error", slog.String("tool", t.Name), slog.String("err", err.Error()))
		return Fail(CodeInternal, "", "the tool failed: "+err.Error(), ""), true, nil
	}
	// T9: result checks.
	return checkResult(res, r.env.Root), true, nil
}

func (r *Gateway) run(ctx context.Context, t *Tool, env *Env, args []byte) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("Tool panic", slog.String("tool", t.Name), slog.Any("panic", p),
				slog.String("stack", string(debug.Stack())))
			res, err = Fail(CodeInternal, "", "the tool crashed; this is a bug in agentls", ""), nil
		}
	}()
	return t.Run(ctx, env, args)
}

func (r *Gateway) allowedNames() []string {
	var names []string
	for _, t := range r.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func readOnlyRisk(k Risk) bool { return k == RiskRead || k == RiskNone }

// checkResult makes a result safe to put into the conversation: valid
// UTF-8, no NUL bytes, bounded size.
func checkResult(res Result, root string) Result {
	c := res.Content
	if !utf8.ValidString(c) {
		c = strings.ToValidUTF8(c, "\uFFFD")
	}
	c = strings.ReplaceAll(c, "\x00", "\uFFFD")
	if len(c) > MaxResultChars && root != "" {
		// A15: keep the whole result where the model can page through it.
		if summary, ok := spill(root, c); ok {
			res.Content = summary
			return res
		}
	}
	if len(c) > MaxResultChars {
		head := c[:MaxResultChars*4/5]
		tail := c[len(c)-MaxResultChars/5:]
		c = strings.ToValidUTF8(head, "") + fmt.Sprintf("\n[… %d bytes cut …]\n", len(c)-len(head)-len(tail)) + strings.ToValidUTF8(tail, "")
	}
	res.Content = c
	return res
}

// describeSchemaError turns a validation error into the field path of the
// innermost failing value and a one-line reason.
func describeSchemaError(err error) (field, reason string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", "arguments do not match the schema"
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	field = strings.Join(ve.InstanceLocation, ".")
	reason = fmt.Sprint(ve.ErrorKind)
	if ve.ErrorKind != nil {
		reason = ve.ErrorKind.LocalizedString(printer)
	}
	return field, reason
}

func compactSchema(s json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, s) != nil {
		return string(s)
	}
	return b.String()
}

var printer = message.NewPrinter(language.English)

// ResultsDir is where results too large for the conversation are kept,
// relative to the workspace root; it holds a .gitignore of "*".
const ResultsDir = ".agentls/results"

// spill stores a large result under the workspace and returns a summary
// that names the file by its workspace path, for read_file.
func spill(root, c string) (string, bool) {
	dir := filepath.Join(root, filepath.FromSlash(ResultsDir))
	summary, path, err := spillLarge(dir, c, MaxResultChars)
	if err != nil || path == "" {
		return "", false
	}
	_ = os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*\n"), 0o644)
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return "", false
	}
	return strings.ReplaceAll(summary, path, filepath.ToSlash(rel)), true
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// commandGrace is what a command's call may take beyond the command's own
// time limit: collecting its output, landing its staged changes.
const commandGrace = 30 * time.Second

// callLimit bounds the execution of one call of t: the gateway's limit,
// or for a tool that runs processes, at least the policy's command
// timeout and a grace, so a policy that gives commands ten minutes is not
// cut at the gateway's two.
func (r *Gateway) callLimit(t *Tool) time.Duration {
	limit := r.opts.Timeout
	if t.Risk != RiskExecute {
		return limit
	}
	command := r.env.Limits.CommandTimeout
	if command <= 0 {
		command = DefaultCommandTimeout
	}
	return max(limit, command+commandGrace)
}
