package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
)

// input is what a hook reads on stdin: Claude Code's field names, so that
// users' hook scripts (jq .tool_input.command) work unchanged, plus the
// gateway's normalized subject.
type input struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName Event           `json:"hook_event_name"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
	Subject       string          `json:"subject,omitempty"`
	ToolResponse  *response       `json:"tool_response,omitempty"`
	Source        string          `json:"source,omitempty"` // SessionStart
	Status        string          `json:"status,omitempty"` // Stop: done, failed, cancelled
}

type response struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	Code    string `json:"code,omitempty"`
}

// output is the JSON a hook may print on stdout: the top-level decision
// form and Claude Code's hookSpecificOutput form.
type output struct {
	Decision     string          `json:"decision"` // block, deny, allow, approve
	Reason       string          `json:"reason"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Continue     *bool           `json:"continue"`
	StopReason   string          `json:"stopReason"`
	Specific     *struct {
		PermissionDecision       string          `json:"permissionDecision"` // allow, deny, ask
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// maxReason bounds the text of a hook that reaches the model.
const maxReason = 2000

// runOne runs h on in and turns what it did into a verdict, failing open
// or closed as h is an observer or a policy hook.
func (s *Set) runOne(ctx context.Context, h *hook, in *input) tools.HookVerdict {
	log := s.log.With(slog.String("event", string(h.event)), slog.String("hook", h.name()))
	fail := func(why string) tools.HookVerdict {
		if h.policy {
			log.Warn("Policy hook gave no verdict; the call is denied", slog.String("why", why))
			s.tell(ctx, fmt.Sprintf("%s policy hook %s gave no verdict (%s); the call is denied", h.event, h.name(), why))
			return tools.HookVerdict{Block: true, Reason: "a policy hook could not decide (" + why + ")", Rule: h.name()}
		}
		log.Warn("Hook failed; going on", slog.String("why", why))
		s.tell(ctx, fmt.Sprintf("%s hook %s failed (%s); going on without it", h.event, h.name(), why))
		return tools.HookVerdict{}
	}
	if h.broken != "" {
		return fail("misconfigured: " + h.broken)
	}
	if h.verify != nil {
		if err := h.verify(); err != nil {
			return fail(err.Error())
		}
	}
	in.HookEventName = h.event
	data, err := json.Marshal(in)
	if err != nil {
		return fail("its input cannot be encoded")
	}
	env := slices.Concat(s.env, []string{"AGENTLS_PROJECT_DIR=" + in.Cwd, "CLAUDE_PROJECT_DIR=" + in.Cwd})
	o := runCommand(ctx, h, in.Cwd, env, data)
	switch {
	case o.timedOut:
		return fail(fmt.Sprintf("no answer within %s; its processes were killed", h.timeout))
	case o.missing:
		return fail("the command was not found or cannot run")
	case o.exit == 2:
		reason := text(o.stderr)
		if reason == "" {
			reason = "no reason given"
		}
		log.Info("Hook blocked the call", slog.String("reason", reason))
		return tools.HookVerdict{Block: true, Reason: reason, Rule: h.name()}
	case o.exit != 0:
		return fail(fmt.Sprintf("exit status %d: %s", o.exit, text(o.stderr)))
	}
	return s.parse(log, h, o.stdout, fail)
}

// parse reads the stdout of a hook that exited 0.
func (s *Set) parse(log *slog.Logger, h *hook, stdout []byte, fail func(string) tools.HookVerdict) tools.HookVerdict {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return tools.HookVerdict{}
	}
	var out output
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &out) != nil {
		if h.policy {
			return fail("its output is not a JSON verdict")
		}
		log.Info("Hook output", slog.String("text", text(trimmed)))
		return tools.HookVerdict{}
	}
	v := tools.HookVerdict{Rule: h.name(), Reason: text([]byte(out.Reason)), UpdatedInput: out.UpdatedInput}
	decision := out.Decision
	if sp := out.Specific; sp != nil {
		if sp.PermissionDecision != "" {
			decision = sp.PermissionDecision
		}
		if sp.PermissionDecisionReason != "" {
			v.Reason = text([]byte(sp.PermissionDecisionReason))
		}
		if sp.UpdatedInput != nil {
			v.UpdatedInput = sp.UpdatedInput
		}
		if h.event == PostToolUse {
			v.Feedback = text([]byte(sp.AdditionalContext))
		}
	}
	if out.Continue != nil && !*out.Continue {
		decision = "block"
		if v.Reason == "" {
			v.Reason = text([]byte(out.StopReason))
		}
	}
	switch decision {
	case "block", "deny":
		v.Block = true
		v.UpdatedInput = nil
	case "", "allow", "approve", "ask":
		// Continue: the gateway's own policy and approval still apply; a
		// hook can refuse what the policy allows, never the reverse.
	default:
		if h.policy {
			return fail(fmt.Sprintf("unknown decision %q", cutText(decision, 40)))
		}
		log.Warn("Hook gave an unknown decision; going on", slog.String("decision", cutText(decision, 40)))
	}
	if h.event != PreToolUse || string(bytes.TrimSpace(v.UpdatedInput)) == "null" {
		v.UpdatedInput = nil // only a call that has not run can be rewritten
	}
	if len(v.UpdatedInput) > 0 && !isObject(v.UpdatedInput) {
		if h.policy {
			return fail("updatedInput is not a JSON object")
		}
		log.Warn("Hook's updatedInput is not a JSON object; ignored")
		v.UpdatedInput = nil
	}
	if h.event == PostToolUse && !v.Block && v.Reason != "" && v.Feedback == "" {
		v.Feedback = v.Reason
	}
	return v
}

func isObject(raw json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// text is hook output made fit for a log line or the model: valid UTF-8,
// no NULs, trimmed, bounded.
func text(b []byte) string {
	return cutText(strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "")), maxReason)
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// tell passes a hook's failure on to the user ([Options.Warn]).
func (s *Set) tell(ctx context.Context, msg string) {
	if s.warn != nil {
		s.warn(ctx, msg)
	}
}
