// Package exec is the sandbox's process runner (S1–S4): it runs a shell
// command that policy has approved in a re-executed helper process, under
// layers that hold even when the approval was wrong, and returns its exit
// status and its bounded, sanitised output.
//
// A [Runner] is a value built once by the program (cmd) with [New] and
// passed to whatever runs commands; its [Options] replace every setting
// that would otherwise be process-global (prestart, the missing-layer
// callback, the logger). The program's main must call [MaybeRunHelper]
// first, since the helper is the program itself.
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
//   - Landlock (S3): read and execute the workspace, /usr, /bin, /sbin,
//     /lib*, /proc, /sys, /etc without its secret files (shadow, sudoers,
//     ssh host keys, TLS private keys, …), GOROOT, GOMODCACHE and the
//     policy's ReadRoots; write only the workspace, a private temp dir
//     (HOME and TMPDIR, removed afterwards) and the sandbox's own Go
//     build cache; open /dev/null, zero, full, random, urandom. The home
//     directory, other projects and other temp files are invisible. Tools
//     installed under HOME (~/go/bin, ~/.cargo, pyenv shims) are invisible
//     too unless the policy adds them as read roots; /dev/shm and
//     pseudo-terminals are not available. Signals and abstract unix
//     sockets are scoped to the command (ABI 6).
//   - seccomp: no unix sockets (docker, the systemd user manager and
//     ssh-agent listen on them, outside every namespace), no io_uring,
//     keyrings, ptrace or process_vm_*.
//   - no capabilities, no_new_privs (setuid binaries gain nothing).
//   - rlimits: CPU seconds, address space, file size and open files per
//     process; no core dumps.
//   - process-limit: RLIMIT_NPROC, which the kernel counts per user
//     namespace; as root (exempt from RLIMIT_NPROC) a cgroup-v1 pids
//     cgroup per command instead.
//   - pdeathsig: the command dies with the server.
//
// The environment is rebuilt from an allowlist; git gets no system or
// global config and none of the settings that run programs. Output is
// captured as [StdoutCap] says.
package exec
