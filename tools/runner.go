package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// RunnerOptions configures a [Runner] for one agent run.
type RunnerOptions struct {
	// Allowed are the tool names offered to the model in this run. The
	// runner refuses every other name, registered or not.
	Allowed []string
	// ReadOnly refuses every tool whose risk is not read or none, even when
	// it is in Allowed: the fallback layer of a plan run (E4).
	ReadOnly bool
	// Timeout bounds one call; zero means 2 minutes.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Runner is the validation gateway: the single entry point through which
// the agent runs a tool call. Every call passes the same steps in the same
// order, cheapest refusals first.
type Runner struct {
	reg  *Registry
	env  *Env
	opts RunnerOptions
	log  *slog.Logger
}

// NewRunner returns a gateway over reg for one run in env.
func NewRunner(reg *Registry, env *Env, opts *RunnerOptions) *Runner {
	r := &Runner{reg: reg, env: env}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Timeout <= 0 {
		r.opts.Timeout = 2 * time.Minute
	}
	r.log = r.opts.Logger
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Tools returns the tools offered to the model in this run.
func (r *Runner) Tools() []*Tool { return r.reg.Select(r.opts.Allowed) }

// Call runs one tool call and returns its result. It returns a Go error
// only when ctx is done; every other failure is an error Result.
func (r *Runner) Call(ctx context.Context, name, args string) (Result, error) {
	start := time.Now()
	res, err := r.call(ctx, name, args)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	decision := "ok"
	if res.IsError {
		decision = string(res.Code)
	}
	r.log.Info("Tool call", slog.String("tool", name), slog.String("result", decision),
		slog.Duration("took", time.Since(start)))
	return res, err
}

func (r *Runner) call(ctx context.Context, name, args string) (Result, error) {
	// T2: a registered tool offered in this run.
	e, ok := r.reg.lookup(name)
	if !ok || !slices.Contains(r.opts.Allowed, name) {
		if ok && r.opts.ReadOnly && !readOnlyRisk(e.tool.Risk) {
			return Fail(CodeReadOnlyRun, "", fmt.Sprintf("%s changes files; this run is read-only", name),
				"use only "+strings.Join(r.allowedNames(), ", ")), nil
		}
		return Fail(CodeUnknownTool, "", fmt.Sprintf("no tool named %q", truncate(name, 64)),
			"available tools: "+strings.Join(r.allowedNames(), ", ")), nil
	}
	// T1: the arguments are one JSON object.
	raw := []byte(strings.TrimSpace(args))
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&inst); err != nil || dec.More() {
		return Fail(CodeInvalidArgs, "", "arguments are not valid JSON",
			"send one JSON object matching the schema: "+compactSchema(e.tool.Schema)), nil
	}
	if _, isObj := inst.(map[string]any); !isObj {
		return Fail(CodeInvalidArgs, "", "arguments must be a JSON object",
			"send one JSON object matching the schema: "+compactSchema(e.tool.Schema)), nil
	}
	// T3: schema.
	if err := e.schema.Validate(inst); err != nil {
		field, reason := describeSchemaError(err)
		return Fail(CodeInvalidArgs, field, reason, "fix the argument and call again"), nil
	}
	// E4 fallback: nothing but reads in a read-only run.
	if r.opts.ReadOnly && !readOnlyRisk(e.tool.Risk) {
		return Fail(CodeReadOnlyRun, "", fmt.Sprintf("%s changes files; this run is read-only", name), ""), nil
	}
	// T8: run, bounded in time, with panics contained.
	cctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	res, err := r.run(cctx, e.tool, raw)
	if err != nil {
		if ctx.Err() != nil {
			return Fail(CodeInternal, "", "cancelled", ""), ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Fail(CodeTimeout, "", fmt.Sprintf("%s did not finish in %s", name, r.opts.Timeout), "narrow the request"), nil
		}
		r.log.Error("Tool infrastructure error", slog.String("tool", name), slog.String("err", err.Error()))
		return Fail(CodeInternal, "", "the tool failed: "+err.Error(), ""), nil
	}
	// T9: result checks.
	return checkResult(res), nil
}

func (r *Runner) run(ctx context.Context, t *Tool, args []byte) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("Tool panic", slog.String("tool", t.Name), slog.Any("panic", p),
				slog.String("stack", string(debug.Stack())))
			res, err = Fail(CodeInternal, "", "the tool crashed; this is a bug in agentls", ""), nil
		}
	}()
	return t.Run(ctx, r.env, args)
}

func (r *Runner) allowedNames() []string {
	var names []string
	for _, t := range r.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func readOnlyRisk(k Risk) bool { return k == RiskRead || k == RiskNone }

// checkResult makes a result safe to put into the conversation: valid
// UTF-8, no NUL bytes, bounded size.
func checkResult(res Result) Result {
	c := res.Content
	if !utf8.ValidString(c) {
		c = strings.ToValidUTF8(c, "\uFFFD")
	}
	c = strings.ReplaceAll(c, "\x00", "\uFFFD")
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

var printer = message.NewPrinter(language.English)
