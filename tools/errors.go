package tools

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/netguard"
)

// Code is a model-facing error code. The list is closed: add a code here
// with its doc line, never inline.
type Code string

// The error codes a tool call can fail with.
const (
	CodeUnknownTool      Code = "unknown_tool"      // no tool by that name in this run
	CodeInvalidArgs      Code = "invalid_args"      // not JSON, or does not match the schema
	CodePathOutsideRoot  Code = "path_outside_root" // a path resolves outside the workspace
	CodeNotFound         Code = "not_found"         // the file or directory does not exist
	CodeReadOnlyRun      Code = "read_only_run"     // a plan run may not change anything
	CodeApprovalDenied   Code = "approval_denied"   // the user refused the change
	CodeApprovalRequired Code = "approval_required" // the call needs an approval nobody can give here
	CodeStaleFile        Code = "stale_file"        // the file changed since it was read
	CodeNoMatch          Code = "no_match"          // edit_file: old_text not found
	CodeAmbiguousMatch   Code = "ambiguous_match"   // edit_file: old_text found more than once
	CodeResourceLimit    Code = "resource_limit"    // a size or count limit was hit
	CodeTimeout          Code = "timeout"           // the call took too long
	CodeCancelled        Code = "cancelled"         // the run was cancelled before the call finished
	CodeUnavailable      Code = "unavailable"       // the capability is absent in this run
	CodeToolUnavailable  Code = "tool_unavailable"  // the tool's MCP server crashed or stopped; its tools are gone
	CodeInternal         Code = "internal"          // a bug or broken infrastructure
	CodePolicyDenied     Code = "policy_denied"     // a policy rule or risk default refused the call
	CodeCommandDenied    Code = "command_denied"    // a command was refused by analysis or policy
	CodeHostNotAllowed   Code = "host_not_allowed"  // a URL or the address it resolves to is not allowed
	CodeSQLNotReadOnly   Code = "sql_not_read_only" // sql_query: the query is not exactly one read-only statement
	CodeProtectedPath    Code = "protected_path"    // agentls' own control files (.agentls/**) are never changed by the model
)

// ErrUnknownTool is returned by [Registry.Lookup] for a name it does not hold.
var ErrUnknownTool = errors.New("unknown tool")

// ToolError is a refusal or failure of one tool call: what went wrong,
// which argument, and how to recover. Inside this package refusals travel
// as *ToolError values (check with errors.As); [ToolError.Result] is the
// one place that turns them into what the model reads. Code, Field,
// Reason and Recovery reach the model and must never carry secrets or
// host paths outside the workspace; Rule and Subject do not reach it (a
// rule may name inner allow-lists) and are kept for the verdict, the
// audit log and `agentls vet`.
type ToolError struct {
	Code     Code   `json:"code"`
	Field    string `json:"field,omitempty"`
	Reason   string `json:"reason"`
	Recovery string `json:"recovery,omitempty"`
	// UserReason is what the user said when they declined (issue 28):
	// the model adapts to it instead of guessing.
	UserReason string `json:"user_reason,omitempty"`
	Rule       string `json:"-"` // the rule that refused, e.g. "path.outside_root"
	Subject    string `json:"-"` // the normalized thing refused, as in [Verdict.Subject]
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Reason }

// Result renders e as the error [Result] the model reads: IsError, Code,
// and e as a JSON object {"code", "field"?, "reason", "recovery"?}.
func (e *ToolError) Result() Result {
	b, _ := json.Marshal(e) // cannot fail: only strings
	return Result{Content: string(b), IsError: true, Code: e.Code, UserReason: e.UserReason}
}

// failure returns a [ToolError] with the fields the model reads.
func failure(code Code, field, reason, recovery string) *ToolError {
	return &ToolError{Code: code, Field: field, Reason: reason, Recovery: recovery}
}

// Fail is shorthand for the [Result] of a [ToolError].
func Fail(code Code, field, reason, recovery string) Result {
	return failure(code, field, reason, recovery).Result()
}

// Recoveries shared by the refusals of several tools.
const (
	recoverPath = "use a path inside the workspace, relative to its root (for example src/main.go)"
	recoverSQL  = "send one read-only query: SELECT, WITH … SELECT, VALUES, EXPLAIN or PRAGMA table_info(name)"
	recoverHTTP = "fetch only URLs the user allowed; if this one is needed, ask the user to add it to the http allowlist"
)

// PolicyRefusal maps a refusal of a sandbox policy to the tool error the
// model hears, about the argument field. It is the only place that turns
// a [*sandbox.PolicyError] into a [ToolError]: the rule's family (path,
// SQL, HTTP) picks the code; within HTTP, what the model can fix itself
// (a malformed URL, credentials, the method) is invalid_args and the rest
// host_not_allowed, with reasons that never list the allowlist.
func PolicyRefusal(pe *sandbox.PolicyError, field string) *ToolError {
	e := &ToolError{Code: CodePolicyDenied, Field: field, Reason: pe.Reason, Rule: pe.Rule, Subject: pe.Subject,
		Recovery: "do not retry this call; choose another way or ask the user"}
	family, _, _ := strings.Cut(pe.Rule, ".")
	switch family {
	case "path":
		e.Code, e.Recovery = CodePathOutsideRoot, recoverPath
		switch pe.Rule {
		case sandbox.RuleHomePath:
			e.Recovery = "paths are relative to the workspace; ~ is not expanded: give the path from the workspace root (for example src/main.go)"
		case sandbox.RuleSymlinkDotDot:
			e.Recovery = `write the path without ".." after a symlink: name the file from the workspace root`
		}
	case "sql":
		e.Code, e.Recovery = CodeSQLNotReadOnly, recoverSQL
	case "http":
		e.Code, e.Recovery = CodeHostNotAllowed, recoverHTTP
		switch pe.Rule {
		case netguard.RuleOff:
			e.Field, e.Recovery = "", "do without network access, or ask the user to enable it"
		case netguard.RuleMalformed, netguard.RuleUserinfo:
			e.Code, e.Recovery = CodeInvalidArgs, "send an absolute URL such as https://host/path, without credentials"
		case netguard.RuleMethod:
			e.Code, e.Field, e.Recovery = CodeInvalidArgs, "method", "use GET or HEAD"
		case netguard.RuleHostNotAllowed:
			e.Reason = "host not in the allowlist"
		case netguard.RulePort, netguard.RulePath:
			e.Reason = "URL not in the allowlist"
		}
	}
	return e
}
