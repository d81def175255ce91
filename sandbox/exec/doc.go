// Package exec is the sandbox's process runner (S1–S4): it runs a shell
// command that policy has approved in a re-executed helper process, under
// layers that hold even when the approval was wrong, and returns its exit
// status and its bounded, sanitised output.
//
// With [Options.Helper] (cmd/agentls-sandbox, a small static binary) the
// runner starts one long-lived zygote of it, which forks and execs each
// command's init into the command's new namespaces: the server itself
// never forks for real (see internal/child/zygote_main_linux.go).
// Without it, the program re-executes itself as init, with the same
// layers.
//
// # Processes
//
// The package's code runs in three processes, and each file's name says
// which: the server (every file of this directory), the zygote
// (internal/child/zygote_main_linux.go) and each command's init
// (internal/child/init_*.go). The zygote's and init's code lives in the
// package internal/child, which imports nothing of agentls, so it cannot
// touch the server's state (the Runner, its probe, warm helper and
// caches); internal/child/protocol_linux.go is the wire between them.
//
//	file                                   process  what it does there
//	exec.go, exec_other.go                 server   the API; off Linux, refusals
//	exec_linux.go                          server   Run: one command's spec (temp dir, env, mounts, rules, cgroup)
//	run_linux.go                           server   one command's run: start, wait, collect
//	launch_linux.go                        server   starting an init and its handle (helperProc)
//	zygote_client_linux.go                 server   its end of the zygote's protocol
//	helper_bin_linux.go                    server   the helper binary: opened, checked, shaken hands with
//	probe_linux.go, probe_cache_linux.go   server   what this kernel and user allow, cached per boot
//	warm_linux.go                          server   the prestarted init
//	env.go, env_host.go, home.go           server   the command's environment and toolchain roots
//	landlock_linux.go, control_linux.go    server   the Landlock rules and the control-file plan
//	overlay_linux.go, gocache_linux.go     server   the staged workspace and the Go cache overlay
//	limits_linux.go                        server   the pids cgroup (for root)
//	output.go                              server   the output caps
//	internal/child/protocol_linux.go       all      the roles (MaybeRun runs first everywhere), the wire
//	internal/child/zygote_main_linux.go    zygote   its loop: fork and exec inits, report exits, reap
//	internal/child/init_linux.go           init     its main: read the spec, restrict, fork the shell, wait
//	internal/child/init_mount_linux.go     init     mounts and the host name
//	internal/child/init_landlock_linux.go  init     applying the Landlock rules
//	internal/child/init_seccomp_linux.go   init     the seccomp filter (init_noseccomp_linux.go: none)
//	internal/child/init_rlimit_linux.go    init     the rlimits, as the shell's ulimit preamble
//	internal/child/init_disk_linux.go      init     the disk budget's watch
//	internal/child/init_fds_linux.go       init     inherited descriptors made close-on-exec
//
// Under which restrictions each runs, and what it can touch:
//
//   - server: none of this package's, the program's own rights. It
//     decides every command's restrictions and applies none of them;
//     from internal/child it calls only stateless code (the types,
//     InitAttr for the self re-exec, Version, SeccompSupported).
//   - zygote: the helper binary, started by the server with setsid and
//     GOMAXPROCS=1, in no namespace and under no Landlock, seccomp or
//     rlimit (it must create each init's namespaces). It holds fd 3 (its
//     socket to the server), fd 4 (/dev/null) and fd 5 (the binary),
//     forks and reaps inits and runs nothing else; it exits when the
//     server's end of the socket closes. Nothing sandboxed can reach it
//     (another PID namespace, no ptrace, no unix sockets).
//   - init: in the command's new namespaces (user, PID: it is PID 1,
//     network, mount, UTS; those the probe found), holding fd 3 (the
//     spec) and fd 4 (its status), with every other descriptor made
//     close-on-exec. It mounts, sets the host name and joins the pids
//     cgroup first; then its locked thread takes no_new_privs, Landlock
//     and seccomp and drops every capability, and forks the shell from
//     that thread, so the shell starts under all of them. Init's other
//     threads stay unrestricted, and init is not dumpable. It has no
//     rlimits (a Go runtime cannot live under them): the shell sets them
//     first thing. It touches its mount namespace and /proc, the pids
//     cgroup's tasks files, /proc/PID/io of its descendants and the disk
//     budget's directories, and signals its namespace.
//
// A [Runner] is a value built once by the program (cmd) with [New] and
// passed to whatever runs commands; its [Options] replace every setting
// that would otherwise be process-global (prestart, the missing-layer
// callback, the logger, the helper binary). The helper is the small
// cmd/agentls-sandbox binary when [Options.Helper] names a usable one
// (opened once, checked, version-matched at the probe), else the program
// itself; either way the program's main must call [MaybeRunHelper] first.
// With [Options.Prestart] the probe runs in the background: [New] and
// whatever the program does next never wait for it, the first
// [Runner.Run] does.
//
// The package owns the namespaces, Landlock, seccomp, rlimits, the
// scrubbed environment, the prestarted helper and the output caps
// ([StdoutCap]). It must not decide whether a command may run (that is
// sandbox/shell's analysis and the tools gateway's approval), must not
// import agentls packages other than the sandbox root, and never runs
// anything unsandboxed: without the helper, or off Linux, Run refuses.
//
// The layers are these; each one the kernel or the user lacks is reported
// once ([Runner.Layers], [Options.OnLayerMissing]) and the others still
// apply:
//
//   - process-group: the helper starts a new session (setsid), so the
//     command has no controlling terminal and is signalled as a group.
//   - user, PID and network namespaces: the helper is PID 1 of a new PID
//     namespace, so setsid'd grandchildren die with the command; the
//     network namespace is empty (loopback down), so nothing connects.
//     AllowNetwork drops the network namespace only.
//   - staging (S9): with [Spec.Stage], the workspace is an overlay in
//     the command's mount namespace whose upper layer is the stage, so
//     nothing the command writes reaches the workspace; the caller
//     merges the change set (sandbox/stage). The Go build cache is an
//     overlay too: the workspace's cache above the user's, both
//     read-only, the command's own layer on top (see gocache_linux.go).
//     Staged, neither of the two control-file protections below applies:
//     the merge classifies every path instead.
//   - mount namespace (S6), made private so nothing propagates to the
//     host: for an unstaged command the user did not approve ([Spec.UserApproved]),
//     the workspace's existing control files ([sandbox.ControlPaths]:
//     .git, .agentls, .vscode, .envrc, …, and where they lead through
//     symlinks and gitfiles) are bind-mounted read-only over themselves.
//   - procfs (S6): a fresh /proc of the command's PID namespace, so it
//     sees its own processes only, never another's command line.
//   - UTS namespace (S6): the command sees the host name
//     "agentls-sandbox" and cannot change the host's.
//   - Landlock (S3): read and execute the workspace, /usr, /bin, /sbin,
//     /lib*, /proc, /sys, /etc without its secret files (shadow, sudoers,
//     ssh host keys, TLS private keys, …), GOROOT, GOMODCACHE, the
//     toolchains under the home directory (S7: every $PATH entry and
//     ~/.pyenv, ~/.cargo/bin, ~/.rustup, ~/go/bin, ~/.nvm, ~/.local/bin,
//     ~/.local/lib and the like, never a directory that is, holds or lies
//     in a secret such as ~/.ssh, ~/.aws, ~/.config/gh or a shell
//     history; RUSTUP_HOME, PYENV_ROOT and the other managers' homes
//     point there) and the policy's ReadRoots; write the workspace, a
//     private temp dir (HOME and TMPDIR, removed afterwards) and the
//     workspace's own Go build cache (S6: one per workspace, so no
//     project can poison another's builds); open /dev/null, zero, full,
//     random, urandom. For a command the user did not approve, the
//     workspace's top directory is read-only and only its other entries
//     are writable beneath: the control files cannot be written, and a
//     missing one (.envrc, .vscode, a .git in a plain directory) cannot
//     be created, because nothing can be added, removed or renamed at the
//     top (Landlock grants by hierarchy, not by name, so this is the only
//     sound way to keep a name that does not exist yet from appearing).
//     Existing top-level files stay writable. The rest of the home
//     directory, other projects and other temp files are invisible;
//     /dev/shm and pseudo-terminals are not available. Signals and
//     abstract unix sockets are scoped to the command (ABI 6).
//   - seccomp: no unix sockets (docker, the systemd user manager and
//     ssh-agent listen on them, outside every namespace), no io_uring,
//     keyrings, ptrace or process_vm_*, no new namespaces (unshare and
//     clone with a namespace flag, setns; clone3 gets ENOSYS so the C
//     library falls back to clone), no mount calls, no fallocate.
//   - no capabilities, no_new_privs (setuid binaries gain nothing).
//   - rlimits: CPU seconds, address space, file size and open files per
//     process; no core dumps.
//   - process-limit: RLIMIT_NPROC, which the kernel counts per user
//     namespace; as root (exempt from RLIMIT_NPROC) a cgroup-v1 pids
//     cgroup per command instead.
//   - disk-budget (S6): the bytes all of the command's processes write
//     to disk, in total ([Limits.DiskBytes], default 2 GiB), from the
//     kernel's per-process I/O accounting, checked every 0.1 s, and for
//     a staged command what its stage, temp dir and cache layer hold
//     (every 0.3 s: writers the kernel reaps uncounted cannot hide);
//     past it the command is killed ([Result.DiskExceeded]).
//   - pdeathsig: the command dies with the server.
//
// Descriptors above 2 that the server holds without O_CLOEXEC never
// reach the command: the helper marks them all close-on-exec first
// (close_range, S6).
//
// The environment is rebuilt from an allowlist; git gets no system or
// global config and none of the settings that run programs. Output is
// captured as [StdoutCap] says.
package exec
