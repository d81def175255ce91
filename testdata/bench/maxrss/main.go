// Command maxrss runs a program and prints its peak RSS in KiB and its
// CPU time in microseconds, from wait4, like GNU time's %M:
//
//	maxrss PROGRAM [ARG...]
//
// A program started straight from a large process cannot be measured
// this way: a vforked child shares its parent's memory until it execs,
// and the kernel carries that peak into the child's maxrss. This launcher
// is small, so what it reports is the program's own (issue 16).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: maxrss PROGRAM [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Println(ru.Maxrss, (ru.Utime.Nano()+ru.Stime.Nano())/1000)
	os.Exit(cmd.ProcessState.ExitCode())
}
