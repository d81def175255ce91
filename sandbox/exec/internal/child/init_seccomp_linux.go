//go:build linux && (amd64 || arm64)

package child

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompDenied are the system calls refused to every command, and why:
//   - io_uring can open sockets and files without the system calls that
//     the filter and its peers watch;
//   - kernel keyrings hold credentials that Landlock does not cover;
//   - ptrace, process_vm_* and pidfd_getfd reach into other processes;
//   - setns and the mount calls (mount, umount2, pivot_root and the new
//     mount API) would change the file-system view that the read-only
//     control files and the private /proc rely on (S6); without
//     capabilities they fail anyway, this keeps it so in any namespace;
//   - clone3 passes its flags in memory that a filter cannot read:
//     ENOSYS makes the C library fall back to clone, whose flags it can;
//   - fallocate claims disk without writing, past the disk budget
//     (EOPNOTSUPP: callers fall back to writing, which is counted).
//
// Argument checks (see seccompProgram): socket(AF_UNIX, …) is refused
// (a unix socket connects to daemons outside every namespace — docker,
// the systemd user manager, ssh-agent — and these run commands for their
// callers; socketpair, which only links the caller's own processes,
// stays), and so are unshare and clone with a namespace flag (S6: a
// nested user namespace gives back every capability, and with it mount
// and the kernel's less travelled paths).
var seccompDenied = []struct {
	nr    uint32
	errno unix.Errno
}{
	{unix.SYS_IO_URING_SETUP, unix.ENOSYS},
	{unix.SYS_IO_URING_ENTER, unix.ENOSYS},
	{unix.SYS_IO_URING_REGISTER, unix.ENOSYS},
	{unix.SYS_KEYCTL, unix.ENOSYS},
	{unix.SYS_ADD_KEY, unix.ENOSYS},
	{unix.SYS_REQUEST_KEY, unix.ENOSYS},
	{unix.SYS_PTRACE, unix.EPERM},
	{unix.SYS_PROCESS_VM_READV, unix.EPERM},
	{unix.SYS_PROCESS_VM_WRITEV, unix.EPERM},
	{unix.SYS_PIDFD_GETFD, unix.EPERM},
	{unix.SYS_SETNS, unix.EPERM},
	{unix.SYS_CLONE3, unix.ENOSYS},
	{unix.SYS_MOUNT, unix.EPERM},
	{unix.SYS_UMOUNT2, unix.EPERM},
	{unix.SYS_PIVOT_ROOT, unix.EPERM},
	{unix.SYS_OPEN_TREE, unix.EPERM},
	{unix.SYS_MOVE_MOUNT, unix.EPERM},
	{unix.SYS_FSOPEN, unix.EPERM},
	{unix.SYS_FSCONFIG, unix.EPERM},
	{unix.SYS_FSMOUNT, unix.EPERM},
	{unix.SYS_FSPICK, unix.EPERM},
	{unix.SYS_MOUNT_SETATTR, unix.EPERM},
	{unix.SYS_FALLOCATE, unix.EOPNOTSUPP},
}

// nsFlags are the namespace flags of unshare; clone's exclude
// CLONE_NEWTIME, whose bit is part of clone's exit signal.
const (
	nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
		unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME
	nsCloneFlags = nsFlags &^ unix.CLONE_NEWTIME
)

// seccompArch is the audit architecture of this build.
func seccompArch() uint32 {
	if runtime.GOARCH == "arm64" {
		return unix.AUDIT_ARCH_AARCH64
	}
	return unix.AUDIT_ARCH_X86_64
}

// SeccompSupported reports whether this kernel has seccomp filters.
func SeccompSupported() error {
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err
}

// seccompProgram is the classic-BPF filter. Offsets are those of struct
// seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half, on these
// little-endian architectures; the flags and domains checked fit in it).
func seccompProgram() []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	p := []unix.SockFilter{
		stmt(ld, 4),                    // arch
		jump(jeq, seccompArch(), 1, 0), // native: skip the next
		stmt(ret, errno(unix.ENOSYS)),  // a foreign ABI (i386 on x86-64)
		stmt(ld, 0),                    // nr
	}
	if runtime.GOARCH == "amd64" {
		p = append(p, jump(jge, 0x40000000, 0, 1), stmt(ret, errno(unix.ENOSYS))) // x32
	}
	for _, d := range seccompDenied {
		p = append(p, jump(jeq, d.nr, 0, 1), stmt(ret, errno(d.errno)))
	}
	// One block per argument check: the call, its args[0] tested with
	// test (jeq or jset) against k, refused with e.
	for _, c := range []struct {
		nr   uint32
		test uint16
		k    uint32
		e    unix.Errno
	}{
		{unix.SYS_SOCKET, jeq, unix.AF_UNIX, unix.EACCES},
		{unix.SYS_UNSHARE, jset, nsFlags, unix.EPERM},
		{unix.SYS_CLONE, jset, nsCloneFlags, unix.EPERM},
	} {
		p = append(p,
			jump(jeq, c.nr, 0, 4),
			stmt(ld, 16),
			jump(c.test, c.k, 0, 1),
			stmt(ret, errno(c.e)),
			stmt(ret, unix.SECCOMP_RET_ALLOW),
		)
	}
	return append(p, stmt(ret, unix.SECCOMP_RET_ALLOW))
}

// applySeccomp installs the filter on the calling thread, which has
// no_new_privs set; exec keeps it.
func applySeccomp() error {
	prog := seccompProgram()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0,
		uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}
