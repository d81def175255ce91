//go:build !race

package child

// raceExitEnv is set only in race-enabled builds (race_on.go).
const raceExitEnv = ""
