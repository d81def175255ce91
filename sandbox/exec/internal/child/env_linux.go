package child

// Env is the whole environment of a sandbox child in role ("init" or
// "zygote"): nothing of the parent's reaches it.
func Env(role string) []string {
	env := []string{RoleEnv + "=" + role, "GOMAXPROCS=1"}
	if raceExitEnv != "" {
		env = append(env, raceExitEnv)
	}
	return env
}
