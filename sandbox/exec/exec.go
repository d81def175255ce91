package exec

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults for [Spec] and [Limits] fields left zero.
const (
	DefaultTimeout = 120 * time.Second // S1: the policy may lower it
	DefaultGrace   = 5 * time.Second   // S1: SIGTERM, this long, then SIGKILL

	DefaultCPUSeconds        = 300
	DefaultAddressSpaceBytes = 4 << 30
	DefaultProcesses         = 512
	DefaultFileSizeBytes     = 1 << 30
	DefaultOpenFiles         = 1024
	DefaultDiskBytes         = 2 << 30
)

// Names of the sandbox layers, as reported by [Runner.Layers], in
// [Result.Layers] and to [Options.OnLayerMissing].
const (
	LayerProcessGroup   = "process-group"     // own session and process group; killed as a group
	LayerPIDNamespace   = "pid-namespace"     // a setsid grandchild dies with the command
	LayerUserNamespace  = "user-namespace"    // unprivileged namespaces; per-command process count
	LayerNetNamespace   = "network-namespace" // no network (an empty namespace) unless allowed
	LayerMountNamespace = "mount-namespace"   // S6: existing control files bind-mounted read-only
	LayerStaging        = "staging"           // S9: the workspace is a copy-on-write overlay; changes merged after checks
	LayerProcfs         = "procfs"            // S6: a /proc of the command's own PID namespace
	LayerUTSNamespace   = "uts-namespace"     // S6: its own host name
	LayerLandlock       = "landlock"          // S3 file-system access rules
	LayerSeccomp        = "seccomp"           // no unix sockets, io_uring, keyrings, ptrace, namespaces
	LayerRlimits        = "rlimits"           // CPU, address space, file size, open files
	LayerProcessLimit   = "process-limit"     // RLIMIT_NPROC per user namespace, or a pids cgroup
	LayerDiskBudget     = "disk-budget"       // S6: bytes written to disk per command, in total
	LayerPdeathsig      = "pdeathsig"         // the command dies with the server
)

// layerOrder is the order layers are listed in.
var layerOrder = []string{
	LayerProcessGroup, LayerPIDNamespace, LayerUserNamespace, LayerNetNamespace,
	LayerMountNamespace, LayerStaging, LayerProcfs, LayerUTSNamespace,
	LayerLandlock, LayerSeccomp, LayerRlimits, LayerProcessLimit, LayerDiskBudget, LayerPdeathsig,
}

// ErrNoHelper reports that the program's main did not call
// [MaybeRunHelper], so [Runner.Run] cannot re-execute the program as the
// sandbox helper. Run refuses to run anything unsandboxed.
var ErrNoHelper = errors.New("sandbox: main did not call MaybeRunHelper")

// helperHooked records that [MaybeRunHelper] was called in this process.
// It is the one piece of process state here: a fact about the program's
// main, not a setting, so it cannot live in a [Runner].
var helperHooked atomic.Bool

// Options configure a [Runner]. A nil *Options is the zero value: no
// prestart, nobody told about missing layers, no logs.
type Options struct {
	// Prestart keeps one helper started ahead for commands without
	// network (the default), so a command pays only the namespace's and
	// the shell's start, not the helper binary's. Servers turn it on;
	// [Runner.Close] ends the warm helper. The warm helper is an ordinary
	// helper: same namespaces and layers, and it dies with the server
	// (Pdeathsig).
	Prestart bool
	// OnLayerMissing, when set, is told once about each sandbox layer
	// that this kernel or user does not allow, the first time the runner
	// finds out (in the background probe that [New] starts with
	// Prestart, else at the first [Runner.Layers] or [Runner.Run]); the
	// other layers still apply. It may be called from any goroutine.
	OnLayerMissing func(layer, why string)
	// Logger receives the runner's diagnostics (a warm helper that could
	// not be started, a helper binary not used). Nil discards them.
	Logger *slog.Logger
	// Helper is the path of the dedicated helper binary,
	// cmd/agentls-sandbox: a small program whose main calls only
	// [MaybeRunHelper], so each command starts a few MiB of code instead
	// of the whole server. "" re-executes the program itself
	// (/proc/self/exe), as does a helper that is not a regular file
	// owned by this user or root and writable by nobody else, or that
	// answers the probe with another version (a stale install); either
	// way the layers are the same, and the fallback is logged at debug.
	// The file is opened once, at the probe, and every helper is started
	// from that descriptor: replacing the file later changes nothing.
	// The program's main must still call [MaybeRunHelper].
	Helper string

	// beforeProbe, when set, runs first in the probe (tests: a slow probe).
	beforeProbe func()
}

// Runner runs approved commands in the sandbox. Programs make one, in
// main, and pass it to whatever runs commands; it finds out once which
// layers this kernel and user allow. A Runner is safe for concurrent
// use. One made with [Options.Prestart] keeps a helper process between
// commands until [Runner.Close]; one without holds nothing between
// commands, and closing it is optional.
type Runner struct {
	opts Options
	log  *slog.Logger
	sys  runnerSys // the platform's probe result and warm helper
}

// New returns a runner with opts (nil means the defaults). With
// opts.Prestart it starts probing the sandbox, and then the first warm
// helper, in the background: New never waits for the probe; the first
// [Runner.Run] or [Runner.Layers] does.
func New(opts *Options) *Runner {
	r := &Runner{}
	if opts != nil {
		r.opts = *opts
	}
	r.log = r.opts.Logger
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.opts.Prestart {
		r.startPrestart()
	}
	return r
}

// Limits are the resource limits of one command. Zero fields take the
// Default* values. CPU time, address space, file size and open files are
// per-process rlimits (every process of the command has them);
// Processes counts the command's processes and threads together;
// DiskBytes bounds what all of them write to disk together (S6).
type Limits struct {
	CPUSeconds        uint64
	AddressSpaceBytes uint64
	Processes         uint64
	FileSizeBytes     uint64
	OpenFiles         uint64
	DiskBytes         uint64
}

// Spec describes one command for [Runner.Run].
type Spec struct {
	// Command is a shell program, run with /bin/bash -c (/bin/sh where
	// there is no bash). It has been analysed and approved already.
	Command string
	// Dir is the workspace root: the working directory and, with the
	// private temp dir, the only place the command can write.
	Dir string
	// Timeout bounds the command's wall time (default 120 s); the caller
	// caps it by policy.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL (default 5 s).
	Grace time.Duration
	// Env holds extra NAME=value variables, already scrubbed by the
	// caller; names that look like secrets or that steer the shell, the
	// loader or git are dropped again.
	Env []string
	// ReadRoots are extra read-only directories or files from the policy.
	ReadRoots []string
	// AllowNetwork runs the command without a network namespace, so it
	// shares the server's network, host loopback included. Without it the
	// command has an empty network namespace: no interface is up, not even
	// loopback, so every connection fails.
	AllowNetwork bool
	// CacheDir is a persistent directory under which each workspace gets
	// its own writable Go build cache (GOCACHE=CacheDir/ws/<hash of
	// Dir>/go-build, S6): a command sees and writes only its workspace's
	// cache, so one project cannot poison another's builds. The user's
	// own GOCACHE is never writable from the sandbox: a command could
	// plant build results that the user's next build would run. Default:
	// <user cache dir>/agentls/sandbox; the private temp dir if that
	// cannot be created.
	CacheDir string
	// UserApproved says that the user approved this very command when
	// asked. Only then may it write the control files of E15
	// ([sandbox.ControlPaths]) at the top of the workspace: a command that
	// runs without asking (a policy allow, such as go test) finds .git,
	// .agentls, .vscode, … read-only, and cannot add, remove or rename
	// entries of the workspace's top directory, where a missing control
	// file would be created (S6). It can still change existing top-level
	// files and anything below the top-level directories.
	UserApproved bool
	// Stage, when set, runs the command on a copy-on-write view of the
	// workspace (S9): everything it writes there goes to Stage.Upper and
	// nothing reaches Dir; the caller reads, checks and merges the change
	// set afterwards (sandbox/stage). Where the kernel cannot stage
	// ([LayerStaging] missing) the command runs on the workspace itself
	// with the protection of UserApproved, and [Result.Staged] is false.
	Stage *Overlay
	// WarmGoCache gives a staged command the user's Go build cache as a
	// read-only layer beneath its workspace's (S11); without it the
	// workspace's own cache is used alone (one overlay mount less).
	WarmGoCache bool
	Limits      Limits
}

// Result is the outcome of a command that ran. A non-zero exit, a
// signal, a timeout or a cancellation are results, not errors.
type Result struct {
	// ExitCode is the shell's exit status; 128+n when signal n killed it.
	ExitCode int
	// Signal names the signal that killed the shell ("SIGKILL"), if any.
	Signal string
	// TimedOut: the timeout (or the context's deadline) expired and the
	// command was stopped; Stdout ends with "[command timed out after Ns]".
	TimedOut bool
	// Canceled: the context was cancelled and the command was stopped;
	// Stdout ends with "[command cancelled after Ns]".
	Canceled bool
	// DiskExceeded: the command wrote more than Limits.DiskBytes to disk
	// and was killed; Stdout ends with "[command stopped: it wrote more
	// than N MiB to disk]".
	DiskExceeded bool
	// Stdout and Stderr are the bounded, sanitised output (see
	// [StdoutCap], [StderrCap]); StdoutBytes and StderrBytes count every
	// byte the command wrote.
	Stdout, Stderr           string
	StdoutBytes, StderrBytes int64
	Duration                 time.Duration
	// Layers lists the sandbox layers that were active for this command.
	Layers []string
	// Staged: the command ran on Spec.Stage; its changes are there, not
	// in the workspace.
	Staged bool
	// StageError says why a command given a stage ran unstaged (with the
	// protection of an unstaged command): its workspace or stage could not
	// be overlaid.
	StageError string
	// HelperLost: the sandbox's helper process (the zygote) was lost
	// while the command ran, which ended the command; Stdout and Stderr
	// hold its output so far, ExitCode is -1 (unknown) and Stdout ends
	// with [helperLostMarker] (issue 26 item 7a).
	HelperLost bool
}

// Overlay is a command's stage: the upper and work directories of its
// copy-on-write view of the workspace ([Spec.Stage]). Both must exist,
// on one file system that keeps user extended attributes, outside the
// workspace.
type Overlay struct {
	Upper, Work string
}

// LayerReport says which sandbox layers this kernel and user allow.
type LayerReport struct {
	Active      []string          // in layerOrder
	Missing     map[string]string // layer name -> why it is missing
	LandlockABI int               // 0 without Landlock
}

// Has reports whether layer is active.
func (r LayerReport) Has(layer string) bool {
	for _, l := range r.Active {
		if l == layer {
			return true
		}
	}
	return false
}

// String prints one line per layer, for `agentls version --sandbox`.
func (r LayerReport) String() string {
	var b strings.Builder
	b.WriteString("sandbox layers:\n")
	for _, l := range layerOrder {
		switch {
		case r.Has(l) && l == LayerLandlock:
			fmt.Fprintf(&b, "  %-18s active (ABI %d)\n", l, r.LandlockABI)
		case r.Has(l):
			fmt.Fprintf(&b, "  %-18s active\n", l)
		default:
			fmt.Fprintf(&b, "  %-18s missing: %s\n", l, r.Missing[l])
		}
	}
	return b.String()
}

// withDefaults returns a copy of s with defaults filled in, or an error
// for a spec that cannot run.
func (s *Spec) withDefaults() (*Spec, error) {
	if s == nil || s.Command == "" {
		return nil, errors.New("sandbox: empty command")
	}
	if strings.IndexByte(s.Command, 0) >= 0 {
		return nil, errors.New("sandbox: the command contains a NUL byte")
	}
	if !filepath.IsAbs(s.Dir) {
		return nil, errors.New("sandbox: the working directory is not an absolute path")
	}
	if filepath.Clean(s.Dir) == "/" {
		return nil, errors.New("sandbox: the workspace cannot be the root directory")
	}
	if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
		return nil, errors.New("sandbox: the working directory is not a directory")
	}
	if s.Stage != nil && (!filepath.IsAbs(s.Stage.Upper) || !filepath.IsAbs(s.Stage.Work)) {
		return nil, errors.New("sandbox: the stage's directories are not absolute paths")
	}
	c := *s
	c.Dir = filepath.Clean(c.Dir)
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	l := &c.Limits
	def := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.CPUSeconds, DefaultCPUSeconds)
	def(&l.AddressSpaceBytes, DefaultAddressSpaceBytes)
	def(&l.Processes, DefaultProcesses)
	def(&l.FileSizeBytes, DefaultFileSizeBytes)
	def(&l.OpenFiles, DefaultOpenFiles)
	def(&l.DiskBytes, DefaultDiskBytes)
	return &c, nil
}

// stopMarker is the line appended to Stdout when a command was stopped.
func stopMarker(what string, d time.Duration) string {
	return "[command " + what + " after " + seconds(d) + "]"
}

// helperLostMarker ends Stdout when the sandbox's helper process was lost
// while the command ran ([Result.HelperLost]).
const helperLostMarker = "[sandbox: the sandbox's helper process was lost while the command ran; " +
	"its output so far is kept; its exit status is unknown]"

// controlNote is appended to Stderr when a command that ran without the
// user's approval was refused a write, so the model knows why.
const controlNote = "[sandbox: writes outside the workspace and $TMPDIR are refused; a command that runs " +
	"without the user's approval also cannot add, remove or rename entries at the top of the workspace, " +
	"nor write .git, .agentls, .vscode and the other control files]"

// refusedWrite reports whether r's output shows a refused write (EACCES
// or EROFS, as C, Go, Rust and Python print them).
func refusedWrite(r *Result) bool {
	for _, s := range []string{r.Stdout, r.Stderr} {
		s = strings.ToLower(s)
		if strings.Contains(s, "permission denied") || strings.Contains(s, "read-only file system") {
			return true
		}
	}
	return false
}

// diskMarker is the line appended to Stdout when the disk budget stopped
// a command.
func diskMarker(limit uint64) string {
	amount := strconv.FormatUint(limit, 10) + " bytes"
	if limit%(1<<20) == 0 {
		amount = strconv.FormatUint(limit>>20, 10) + " MiB"
	}
	return "[command stopped: it wrote more than " + amount + " to disk]"
}

// seconds formats d as "120s" or "0.25s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "s"
}

// appendLine appends line to s on a line of its own.
func appendLine(s, line string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + line
}
