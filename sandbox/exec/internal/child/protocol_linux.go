package child

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The wire between the three processes (see the table in
// sandbox/exec's doc.go): how each knows its role, the spec and status
// that the server and init exchange on two pipes, and the messages that
// the server and the zygote exchange on a socket. The types here are wire
// formats, JSON on both sides; the code is only what decides the role
// (MaybeRun) or what the server and the zygote run alike (InitAttr,
// Version).

// How a process knows its role: argv[0] and RoleEnv. Neither is ever
// set for a process of the server.
const (
	RoleEnv    = "AGENTLS_SANDBOX_EXEC"
	ArgInit    = "agentls-sandbox-init"
	ArgZygote  = "agentls-sandbox-zygote"
	InitComm   = "agentls-sandbox" // init's process name
	ZygoteComm = "agentls-zygote"  // the zygote's, in ps
)

// MaybeRun does the work of the zygote or of init, and exits, when the
// process was started as one (argv[0] and RoleEnv); otherwise it returns
// at once. sandbox/exec's MaybeRunHelper calls it.
func MaybeRun() {
	if len(os.Args) > 0 && os.Args[0] == ArgZygote && os.Getenv(RoleEnv) == "zygote" {
		nameSelf(ZygoteComm)
		os.Exit(runZygote())
	}
	if len(os.Args) > 0 && os.Args[0] == ArgInit && os.Getenv(RoleEnv) == "init" {
		nameSelf(InitComm)
		os.Exit(runInit())
	}
}

// nameSelf sets the process name ps and top show: started as
// /proc/self/fd/N or /proc/self/exe, the helper would be "N" or "exe".
// Names are cut to 15 bytes.
func nameSelf(name string) {
	b := []byte(name + "\x00")
	unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
}

// Init's descriptors: the spec travels as JSON on an inherited pipe (fd
// 3), never in argv or the environment; the status comes back on a
// second pipe (fd 4).
const (
	SpecFD   = 3
	StatusFD = 4
)

// Limits are the command's resource limits: the fields of sandbox/exec's
// Limits, so that one converts to the other.
type Limits struct {
	CPUSeconds        uint64
	AddressSpaceBytes uint64
	Processes         uint64
	FileSizeBytes     uint64
	OpenFiles         uint64
	DiskBytes         uint64
}

// Spec is what the server's Runner.Run sends to init.
type Spec struct {
	Probe    bool      `json:"probe,omitempty"`
	Shell    string    `json:"shell"`
	Command  string    `json:"command"`
	Dir      string    `json:"dir"`
	Env      []string  `json:"env"`
	Limits   Limits    `json:"limits"`
	NPROC    bool      `json:"nproc,omitempty"` // RLIMIT_NPROC counts per user namespace
	Landlock *Landlock `json:"landlock,omitempty"`
	Seccomp  bool      `json:"seccomp,omitempty"`
	// Cgroup is the command's pids cgroup (v1) and CgroupHome the one
	// the server is in; init's forking thread visits the first.
	Cgroup     string `json:"cgroup,omitempty"`
	CgroupHome string `json:"cgroupHome,omitempty"`
	// Mounts is the work in the command's own mount namespace; nil
	// without one.
	Mounts *Mounts `json:"mounts,omitempty"`
	// Hostname is set in the command's own UTS namespace; "" without one.
	Hostname string `json:"hostname,omitempty"`
	// DiskWatch enforces Limits.DiskBytes (see watchDisk).
	DiskWatch bool `json:"diskWatch,omitempty"`
	// DiskDirs are directories whose contents count against
	// Limits.DiskBytes besides what the processes write: the stage's
	// upper layer and the private temp dir (S11).
	DiskDirs []string `json:"diskDirs,omitempty"`
}

// Status is init's report to the server's Runner.Run: one with Started
// once the shell runs (signals reach it from then on), then the final
// one.
type Status struct {
	Started bool `json:"started,omitempty"`
	PID1    bool `json:"pid1,omitempty"` // probe: the helper is PID 1
	// Version is the probe's answer: init's [Version].
	Version string `json:"version,omitempty"`
	Exit    int    `json:"exit"`
	Signal  int    `json:"signal,omitempty"`
	Disk    bool   `json:"disk,omitempty"`  // killed for writing past Limits.DiskBytes
	Error   string `json:"error,omitempty"` // setting up failed; nothing ran
	// The probe's trials of the mount namespace, the fresh /proc and the
	// host name: why each failed, "" when it worked.
	MountErr string `json:"mountErr,omitempty"`
	ProcErr  string `json:"procErr,omitempty"`
	UTSErr   string `json:"utsErr,omitempty"`
	StageErr string `json:"stageErr,omitempty"`
}

// Landlock is the S3 file-system policy of one command, built by
// the server's Runner.Run and applied by init. Paths that do not exist are
// skipped; a rule on a file grants only the file rights of its set.
type Landlock struct {
	ABI  int      `json:"abi"`
	Read []string `json:"read"` // read files, list directories, execute — beneath
	// Resolved are read roots like Read that the server has already
	// resolved through symlinks (the toolchains, S7): they are opened
	// with RESOLVE_NO_SYMLINKS, so one with a symlink anywhere in its
	// path by now (a directory swapped since it was checked) grants
	// nothing.
	Resolved []string `json:"resolved,omitempty"`
	List     []string `json:"list"`  // list directories only (parts of them are secret)
	Write    []string `json:"write"` // every right, beneath
	// Entries get every right beneath, like Write, but a symlink is not
	// followed: an entry that has become one since the plan is skipped.
	Entries []string `json:"entries,omitempty"`
	Dev     []string `json:"dev"`     // device files: read, write, truncate, ioctl
	DenyTCP bool     `json:"denyTCP"` // no network namespace: refuse TCP bind and connect
}

// Mounts is the helper's work in the command's own mount namespace
// (S6), done before Landlock, so that Landlock's rules name what the
// command will see.
type Mounts struct {
	// Proc mounts a fresh procfs on /proc: with the helper as PID 1 of a
	// new PID namespace it shows the command's processes only.
	Proc bool `json:"proc,omitempty"`
	// Overlays are mounted first, in order (staged execution, S9).
	Overlays []Overlay `json:"overlays,omitempty"`
	// ReadOnly are bind-mounted read-only over themselves (the
	// workspace's existing control files, see sandbox/exec's planControl).
	ReadOnly []string `json:"readOnly,omitempty"`
}

// Overlay is one overlay: Lowers (read-only, topmost first), Upper
// and Work (on one file system, writable) mounted on Target.
type Overlay struct {
	Target string   `json:"target"`
	Lowers []string `json:"lowers"`
	Upper  string   `json:"upper"`
	Work   string   `json:"work"`
}

// StageMountError begins the helper's report of an overlay it could not
// mount: nothing ran, and the server's Runner.Run runs the command
// unstaged.
const StageMountError = "mounting the staged view of"

// The zygote's protocol (see zygote_main_linux.go for why there is
// a zygote), on a SOCK_SEQPACKET socketpair (fd 3 in the zygote), one JSON
// message per packet:
//
//	server → zygote  {"op":"start","id":N,"flags":F} with the spec and
//	                 status pipes, and stdout and stderr unless /dev/null,
//	                 as SCM_RIGHTS
//	zygote → server  {"id":N,"pid":P} or {"id":N,"error":"…"}
//	zygote → server  {"exited":P,"code":C,"signal":S} once init exits
//	                 (not reaped yet: its PID and process group ID stay
//	                 taken)
//	server → zygote  {"op":"reap","pid":P}
//
// The zygote exits when the server's end closes (the server exited, or
// Runner.Close); every init it started dies then of its Pdeathsig.
const (
	zygoteSockFD = 3
	zygoteNullFD = 4 // /dev/null, init's stdin and, without one given, its output
)

// ZygoteMsg is one message either way.
type ZygoteMsg struct {
	Op     string `json:"op,omitempty"`
	ID     uint64 `json:"id,omitempty"`
	Flags  uint64 `json:"flags,omitempty"`
	Output bool   `json:"output,omitempty"` // stdout and stderr were sent
	PID    int    `json:"pid,omitempty"`
	Error  string `json:"error,omitempty"`
	Exited int    `json:"exited,omitempty"`
	Code   int    `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
}

// InitAttr is how init is started in the namespaces flags, by the server
// (the self re-exec) or by the zygote.
func InitAttr(flags uintptr) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
	if flags&unix.CLONE_NEWUSER != 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		if os.Getuid() != 0 && flags&(unix.CLONE_NEWNS|unix.CLONE_NEWUTS) != 0 {
			// A uid other than 0 loses the namespace's capabilities at
			// exec; init needs CAP_SYS_ADMIN there to mount and set the
			// host name. The shell drops it with the rest.
			attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		}
	}
	return attr
}

// Protocol numbers what the server and the helper exchange: the
// spec, the status and what the helper does with them (its layers). Bump
// it whenever any of that changes; a helper binary that reports another
// [Version] is not used.
const Protocol = 3 // 2: the zygote; 3: Landlock roots resolved by the server (Landlock.Resolved)

// Version identifies the helper's code: the protocol and, when the
// binary was stamped with them, the module version and the VCS revision.
// Binaries of one `go install ./cmd/...` report the same; one left over
// from another revision does not. (Two builds of one revision with
// different uncommitted changes cannot be told apart.) Init answers the
// probe with it; the server compares.
func Version() string {
	v := "agentls-sandbox/" + strconv.Itoa(Protocol)
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var b strings.Builder
	b.WriteString(v)
	b.WriteString(" " + bi.Main.Version)
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			b.WriteString(" " + s.Key + "=" + s.Value)
		}
	}
	return b.String()
}
