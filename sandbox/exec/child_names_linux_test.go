package exec

import "github.com/agentls/agentls/sandbox/exec/internal/child"

// The process names of the zygote and of init, which the tests check in
// /proc/PID/comm.
const (
	helperComm = child.InitComm
	zygoteComm = child.ZygoteComm
)
