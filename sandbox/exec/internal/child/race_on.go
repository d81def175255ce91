//go:build race

package child

// raceExitEnv: a program built with -race sleeps a second when it exits
// (GORACE's atexit_sleep_ms, so other goroutines can report), and every
// init and zygote of a race-enabled build paid it: the fallback tests
// took 3.5 s a command. The children of such a build are told not to.
const raceExitEnv = "GORACE=atexit_sleep_ms=0"
