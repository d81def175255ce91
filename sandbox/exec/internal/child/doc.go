// Package child is the code of sandbox/exec that runs outside the server:
// the zygote's loop (zygote_main_linux.go) and each command's init
// (init_*.go), which sets up the command's mounts, host name, pids
// cgroup, Landlock, seccomp, capabilities and rlimits, runs its shell and
// reports its status. protocol_linux.go holds the wire the three
// processes share: the roles, init's spec and status, the zygote's
// messages.
//
// It is a package of its own so that code running in the zygote or in
// init cannot reach the server's state (the Runner, its probe, its warm
// helper, its caches): it imports nothing of agentls, and sandbox/exec is
// its only importer. The table in sandbox/exec's doc.go says which
// process runs which file, under which restrictions. Package init
// functions run in every process before sandbox/exec.MaybeRunHelper, so
// they must not have side effects.
package child
