package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/sandbox/shell"
	"github.com/agentls/agentls/sandbox/stage"
)

// Risk is what a tool touches, declared by the tool and enforced by the
// [Gateway]. Risk never comes from a tool's name.
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

// Tool is one callable tool, built by [New] from a typed handler or by
// hand (MCP tools). The [Gateway] validates arguments against Schema
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
	Check func(ctx context.Context, env *Env, args json.RawMessage) (*Verdict, error)

	// Run executes the call. Tool failures are returned as a Result with
	// IsError set; a non-nil error means infrastructure failure.
	Run func(ctx context.Context, env *Env, args json.RawMessage) (Result, error)

	// Available reports whether the tool can still be called; nil means
	// always. A tool that is gone (an MCP server removed after crashing
	// again) is left out of [Gateway.Tools], so the model's next request
	// no longer offers it (issue 25).
	Available func() bool

	args reflect.Type // the argument type of a tool made by [New]
}

// Env is what a tool may use while running, shared by every call of a run.
// A nil interface means the capability is absent in this run and the tool
// reports that as a tool error. The [Gateway] hands each call a copy whose
// [Env.Call] says what it decided about that call; tools read it through
// the copy, never through the context.
type Env struct {
	// Root is the absolute workspace root with symlinks resolved.
	Root string
	// Workspace reads files as the user sees them (open buffers first).
	Workspace Workspace
	// Edits shows proposed file changes to the user; nil means no changes.
	Edits EditProposer
	// Findings receives review findings; nil means none are collected.
	Findings FindingSink
	// Sync gets approved edits that still sit in editor buffers onto the
	// disk before a process reads it (run_command); it returns the paths
	// still unsaved. Nil means edits are on disk already.
	Sync func(ctx context.Context) []string
	// Reads tracks what the model has seen of each file (T17); nil
	// disables the check.
	Reads *ReadTracker
	// Home is the user's home directory, so that shell analysis treats
	// absolute paths into it like ~/…; "" is fine (~ is still outside).
	Home string
	// Exec runs run_command's processes in the sandbox; nil means no
	// command can run in this run.
	Exec *exec.Runner
	// Limits are the policy's settings for what tools reach ([Policy.Apply]).
	Limits Limits
	// Protected are workspace-relative paths that hooks and MCP servers
	// run: a command's change to one is held (S10).
	Protected []string
	// Checkpoint keeps the previous content of what a command's merge
	// changes (S9); nil keeps nothing.
	Checkpoint Checkpoint

	// Call is what the gateway decided about the one call this copy of
	// the environment is for ([Gateway.Call] sets it). Outside a gateway,
	// and in a check, it is the zero Call: nothing approved, nobody to ask.
	Call Call
}

// Limits are the policy file's settings for what tools may reach while
// running; the zero value means no network and the default command
// timeout.
type Limits struct {
	// HTTP is the network policy of http_fetch; nil means no network.
	HTTP *netguard.Policy
	// ShellRules extend the shell analyser's command table.
	ShellRules []shell.CommandRule
	// ProjectShellRules are the project's ask and deny rules for commands,
	// applied only where they are stricter ([Policy.ProjectShellRules]).
	ProjectShellRules []shell.CommandRule
	// CommandTimeout caps run_command; zero means DefaultCommandTimeout.
	CommandTimeout time.Duration
	// CommandNetwork lets run_command use the network.
	CommandNetwork bool
}

// DefaultCommandTimeout caps run_command when the policy sets no cap.
const DefaultCommandTimeout = 120 * time.Second

// Checkpoint keeps what a merge changes so that a revert can undo it
// (agent/session's Run implements it).
type Checkpoint = stage.Checkpoint

// Workspace reads workspace files as the user sees them.
//
// ReadFile takes a workspace-relative slash path that the caller has already
// checked with the sandbox path policy, and returns the editor's buffer when
// the file is open there, otherwise the disk content. It must be safe for
// concurrent use.
type Workspace interface {
	ReadFile(ctx context.Context, rel string) ([]byte, error)
}

// FileChange is a proposed change to one workspace file. Old and New are
// handed over: neither the tool that made the change nor anyone after it
// writes to them again, so a proposer may view them as strings without a
// copy (lspserver's frozenString; issue 27, a 10 MiB file held once).
type FileChange struct {
	Path   string // workspace-relative, slash separated
	Old    []byte // the content the change was computed against
	New    []byte
	Create bool // the file does not exist yet
	Tool   string
	// Preapproved says the change needs no confirmation by the proposer:
	// the policy allowed it outright (an allow rule), or the gateway asked
	// the user already because the proposer shows nothing ([DiskProposer]).
	// False, the zero value, means the user confirms it first (E6).
	Preapproved bool
	// Control marks a control file (E15, [Verdict.Control]): the proposer
	// asks about this change on its own, showing Warning, whatever its
	// annotations or the policy say. The gateway never preapproves it.
	Control bool
	Warning string
}

// HunkOutcome says whether one hunk of a [FileChange] landed.
type HunkOutcome struct {
	Index   int    `json:"index"`
	Lines   string `json:"lines"` // "12-14" in the original file, 1-based
	Applied bool   `json:"applied"`
	// UserReason is what the user said when rejecting this hunk;
	// UserChange is the diff of the user's own change to the proposed
	// text, when they edited the hunk before accepting it (issue 28).
	UserReason string `json:"user_reason,omitempty"`
	UserChange string `json:"user_change,omitempty"`
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
	// UserReason is what the user said when rejecting the whole change.
	UserReason string `json:"user_reason,omitempty"`
}

// EditProposer shows a [FileChange] to the user and reports what landed.
//
// Propose lets the user confirm a change that is not
// [FileChange.Preapproved] (a diff preview, a question) and applies a
// preapproved one without asking. It blocks until the user answered, the
// context is done, or the policy's approval timeout passed; a timeout or a
// lost client is a refusal (Applied false), not an error. It must be safe
// for concurrent use.
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
	// Subject is what the call acted on, as its approval shows it (the
	// command line, the path, the URL), set by [Gateway.Call] for the
	// editor's run view (E16). Never logged, never sent to the model.
	Subject string `json:"-"`
	// ExitCode is a command's exit status (run_command); nil for the
	// other tools and for a command that did not run.
	ExitCode *int `json:"-"`
	// Files are the files a staged command changed that landed (S9), for
	// the run view. Never sent to the model (its content says the same).
	Files []FileLanded `json:"-"`
	// UserReason is the reason the user gave for declining the call, for
	// the audit log; the model reads it in Content.
	UserReason string `json:"-"`
	// Explain says why the call was allowed, asked or denied and who let
	// it run (E21), set by [Gateway.Call] for the run's steps, the audit
	// log and the run views. Never sent to the model.
	Explain *Explanation `json:"-"`
	// declinedByFlag: the client's flag declined the call, not a person
	// (headless --approve=never), for its explanation.
	declinedByFlag bool
}

// FileLanded is a file a command changed, as it landed.
type FileLanded struct {
	Path   string
	Change string // "added", "changed" or "deleted"
}
