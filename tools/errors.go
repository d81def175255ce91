package tools

import (
	"encoding/json"
	"errors"
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
	CodeUnavailable      Code = "unavailable"       // the capability is absent in this run
	CodeInternal         Code = "internal"          // a bug or broken infrastructure
	CodePolicyDenied     Code = "policy_denied"     // a policy rule or risk default refused the call
	CodeCommandDenied    Code = "command_denied"    // a command was refused by analysis or policy
	CodeHostNotAllowed   Code = "host_not_allowed"  // a URL or the address it resolves to is not allowed
	CodeSQLNotReadOnly   Code = "sql_not_read_only" // sql_query: the query is not exactly one read-only statement
)

// ErrUnknownTool is returned by [Registry.Lookup] for a name it does not hold.
var ErrUnknownTool = errors.New("unknown tool")

// ToolError is the structured error sent to the model: what went wrong,
// which argument, and how to recover. It must never carry secrets or host
// paths outside the workspace.
type ToolError struct {
	Code     Code   `json:"code"`
	Field    string `json:"field,omitempty"`
	Reason   string `json:"reason"`
	Recovery string `json:"recovery,omitempty"`
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Reason }

// Result renders e as an error [Result].
func (e *ToolError) Result() Result {
	b, _ := json.Marshal(e) // cannot fail: only strings
	return Result{Content: string(b), IsError: true, Code: e.Code}
}

// Fail is shorthand for a [ToolError] result.
func Fail(code Code, field, reason, recovery string) Result {
	return (&ToolError{Code: code, Field: field, Reason: reason, Recovery: recovery}).Result()
}
