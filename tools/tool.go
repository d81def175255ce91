package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/sandbox/shell"
)

// Risk is what a tool touches, declared by the tool and enforced by the
// [Runner]. Risk never comes from a tool's name.
type Risk string

// The risks a tool can declare.
const (
	RiskRead    Risk = "read"    // reads workspace files
	RiskWrite   Risk = "write"   // proposes changes to workspace files
	RiskExecute Risk = "execute" // runs processes
	RiskNetwork Risk = "network" // talks to the network
	RiskMCP     Risk = "mcp"     // calls an MCP server
	RiskNone    Risk = "none"    // touches nothing outside the run (findings, questions)
)

// Tool is one callable tool. The Runner validates arguments against Schema
// before Run sees them, so Run may decode them without re-checking shape.
type Tool struct {
	Name        string          // snake_case, [a-z0-9_], at most 64 bytes
	Description string          // lean: it is resent to the model every turn
	Schema      json.RawMessage // JSON Schema of the arguments object
	Risk        Risk

	// Check is the tool's static policy step (T4-T6): it normalizes the
	// schema-valid args, applies the sandbox policy for what the tool
	// touches (paths, SQL, URL, command) and describes the effect, without
	// any side effect: `agentls vet` runs it too. Nil means allow with no
	// preview.
	Check func(ctx context.Context, env *Env, args json.RawMessage) (*Check, error)

	// Run executes the call. Tool failures are returned as a Result with
	// IsError set; a non-nil error means infrastructure failure.
	Run func(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Decision is a policy verdict.
type Decision string

// The verdicts, from most to least permissive.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Check is what a tool's static policy step found.
type Check struct {
	// Subject is the normalized thing the call touches, which policy
	// patterns match: a workspace-relative path, a command, a URL, or
	// "database: query". It must not contain secrets.
	Subject string
	// Decision is the tool's built-in verdict. Deny is final: no policy
	// rule or approval can turn it into a run.
	Decision Decision
	Code     Code   // the error code of a deny
	Field    string // the argument a deny is about, if one
	Rule     string // the rule that decided, e.g. "sql.read_only"
	Reason   string // safe to show to the model
	// Safe says the tool's own analysis established that the call is
	// harmless (a read-only command with safe arguments): a risk default
	// of ask is lifted to allow. A risk default of deny still applies.
	Safe bool
	// Preview describes the effect for the person approving it: a diff,
	// command and working directory, method and URL, SQL objects.
	Preview string
}

// Env is what a tool may use while running. Every field but Logger is
// required for the tools that use it; a nil interface means the capability
// is absent in this run and the tool reports that as a tool error.
type Env struct {
	// Root is the absolute workspace root with symlinks resolved.
	Root      string
	Workspace Workspace
	Edits     EditProposer
	Findings  FindingSink
	// Sync gets approved edits that still sit in editor buffers onto the
	// disk before a process reads it (run_command); it returns the paths
	// still unsaved. Nil means edits are on disk already.
	Sync func(ctx context.Context) []string
	// Reads tracks what the model has seen of each file (T17); nil
	// disables the check.
	Reads *ReadTracker
	// Approver asks the user directly (human_confirm); nil means nobody can.
	Approver Approver
	// Home is the user's home directory, so that shell analysis treats
	// absolute paths into it like ~/…; "" is fine (~ is still outside).
	Home string
	// ShellRules extend the shell analyser's command table (policy file).
	ShellRules []shell.CommandRule
	// CommandTimeout caps run_command; zero means DefaultCommandTimeout.
	CommandTimeout time.Duration
	// CommandNetwork lets run_command use the network (policy file).
	CommandNetwork bool
	// Exec runs run_command's processes in the sandbox; nil means no
	// command can run in this run.
	Exec *exec.Runner
	// HTTP is the network policy of http_fetch; nil means no network.
	HTTP   *netguard.Policy
	Logger *slog.Logger
}

// Workspace reads workspace files as the user sees them.
//
// ReadFile takes a workspace-relative slash path that the caller has already
// checked with the sandbox path policy, and returns the editor's buffer when
// the file is open there, otherwise the disk content. It must be safe for
// concurrent use.
type Workspace interface {
	ReadFile(ctx context.Context, rel string) ([]byte, error)
}

// FileChange is a proposed change to one workspace file.
type FileChange struct {
	Path   string // workspace-relative, slash separated
	Old    []byte // the content the change was computed against
	New    []byte
	Create bool // the file does not exist yet
	Tool   string
}

// HunkOutcome says whether one hunk of a [FileChange] landed.
type HunkOutcome struct {
	Index   int    `json:"index"`
	Lines   string `json:"lines"` // "12-14" in the original file, 1-based
	Applied bool   `json:"applied"`
}

// EditOutcome is the user's answer to a proposed [FileChange].
type EditOutcome struct {
	Applied bool          `json:"applied"` // at least one hunk landed as proposed
	Hunks   []HunkOutcome `json:"hunks,omitempty"`
	Reason  string        `json:"reason,omitempty"` // why it was refused or differs
	Saved   bool          `json:"saved"`            // the result is on disk too
	// Stale is set when the change was refused because the file is no
	// longer what the change was computed against (T17).
	Stale bool `json:"stale,omitempty"`
}

// EditProposer shows a [FileChange] to the user and reports what landed.
//
// Propose blocks until the user answered, the context is done, or the
// proposer's own timeout passed; a timeout or a lost client is a refusal
// (Applied false), not an error. It must be safe for concurrent use.
type EditProposer interface {
	Propose(ctx context.Context, change *FileChange) (*EditOutcome, error)
}

// Finding is one review finding, on 1-based lines of a workspace file.
type Finding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	EndLine  int    `json:"end_line,omitempty"`
	Severity string `json:"severity"` // error, warning, info, hint
	Message  string `json:"message"`
}

// FindingSink receives review findings. Report returns an error describing
// why a finding was dropped (outside the workspace, no such line); the
// caller turns it into a tool error.
type FindingSink interface {
	Report(ctx context.Context, f Finding) error
}

// Result is what a tool call gives back to the model.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
	Code    Code   `json:"code,omitempty"` // set when IsError
	// For the audit log of file changes (T10): hashes of the proposed
	// content and of what landed. Never sent to the model.
	ProposedSHA256 string `json:"-"`
	AppliedSHA256  string `json:"-"`
}
