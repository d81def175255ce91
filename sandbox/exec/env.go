package exec

import (
	"net/url"
	"strings"
)

// passedEnv are the variables a command inherits from the server's
// environment (S2); every other one is dropped. LC_* is matched as a
// prefix.
var passedEnv = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TZ": true, "USER": true, "LOGNAME": true,
	"GOPATH": true, "GOFLAGS": true, "GOOS": true, "GOARCH": true, "GOAMD64": true,
	"GOARM64": true, "CGO_ENABLED": true, "GOEXPERIMENT": true, "GOPRIVATE": true,
	"GONOPROXY": true, "GONOSUMDB": true, "GOTOOLCHAIN": true,
}

// secretNameParts mark a variable name (upper-cased) as a credential.
var secretNameParts = []string{
	"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
	"CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY", "_KEY", "_AUTH", "AUTH_", "COOKIE",
	"SESSION", "DSN", "DATABASE_URL", "CONNECTION_STRING", "_PWD",
}

// secretNamePrefixes mark whole families of variables as credentials or as
// doors out of the sandbox (agent sockets, session buses, cloud configs).
var secretNamePrefixes = []string{
	"AWS_", "AZURE_", "ARM_", "GCP_", "GOOGLE_", "GCLOUD", "CLOUDSDK_", "OPENAI_",
	"ANTHROPIC_", "GITHUB_", "GH_", "GITLAB_", "SSH_", "GPG_", "GNUPG", "DOCKER_", "KUBE",
	"VAULT_", "NPM_", "YARN_", "HF_", "HUGGING", "SLACK_", "STRIPE_", "SENTRY_", "DBUS_",
	"XDG_RUNTIME", "AGENTLS_", "NETRC", "PGPASS", "MYSQL_PWD",
}

// steeringNames may not be set through [Spec.Env]: they run code
// behind the analysed command's back (loader, shell start-up, interpreter
// options), point git elsewhere, or are set by the sandbox itself.
var steeringNames = map[string]bool{
	"PATH": true, "HOME": true, "TMPDIR": true, "TMP": true, "TEMP": true, "SHELL": true,
	"ENV": true, "BASH_ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"PROMPT_COMMAND": true, "IFS": true, "CDPATH": true, "GLOBIGNORE": true,
	"PAGER": true, "EDITOR": true, "VISUAL": true, "TERM": true,
	"GOROOT": true, "GOCACHE": true, "GOMODCACHE": true, "GOPROXY": true, "GOENV": true,
	"NODE_OPTIONS": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PERL5OPT": true,
	"PERL5LIB": true, "RUBYOPT": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"JDK_JAVA_OPTIONS": true, "MAKEFLAGS": true,
	// The toolchain homes the sandbox points at (home.go).
	"RUSTUP_HOME": true, "PYENV_ROOT": true, "RBENV_ROOT": true, "NODENV_ROOT": true,
	"GOENV_ROOT": true, "VOLTA_HOME": true, "ASDF_DATA_DIR": true, "PYTHONUSERBASE": true,
}

// steeringPrefixes are prefixes of names refused in [Spec.Env].
var steeringPrefixes = []string{"LD_", "GIT_", "BASH_FUNC_", "DYLD_"}

// gitConfig is forced on every git the command runs (command-line scope,
// which beats the repository's config): no fsmonitor, pager, hooks or
// credential helper. Settings that git cannot switch off by config —
// diff.external, textconv and filter drivers — still run from the
// repository's config, inside the sandbox; the shell analysis asks for
// --no-ext-diff and --no-textconv instead. (An empty diff.external would
// break every git diff.)
var gitConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.pager", "cat"},
	{"core.hooksPath", "/dev/null"},
	{"credential.helper", ""},
}

// secretVar reports whether an environment entry must never reach a
// command: a credential-like name, or a URL value carrying a password.
func secretVar(name, value string) bool {
	n := strings.ToUpper(name)
	for _, p := range secretNamePrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, p := range secretNameParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	if i := strings.Index(value, "://"); i >= 0 {
		if u, err := url.Parse(strings.TrimSpace(value)); err != nil || u.User != nil {
			return true
		}
	}
	return false
}

// steeringVar reports whether name may not be set through Spec.Env.
func steeringVar(name string) bool {
	n := strings.ToUpper(name)
	if steeringNames[n] {
		return true
	}
	for _, p := range steeringPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// validEnvName reports whether s is a portable variable name.
func validEnvName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// envInput is what [commandEnv] builds an environment from.
type envInput struct {
	parent       []string // the server's environment (os.Environ)
	extra        []string // Spec.Env
	tmp          string   // the private temp dir: HOME and TMPDIR
	shell        string
	goroot       string
	gomodcache   string
	gocache      string
	toolchain    [][2]string // toolchain homes (S7)
	allowNetwork bool
}

// commandEnv builds a command's environment: an allowlist from the
// server's environment, the caller's extras minus secrets and steering
// variables, and the sandbox's fixed settings, which nothing overrides.
func commandEnv(in envInput) []string {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	for _, kv := range in.parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (passedEnv[k] || strings.HasPrefix(k, "LC_")) && !secretVar(k, v) {
			set(k, v)
		}
	}
	for _, kv := range in.extra {
		k, v, ok := strings.Cut(kv, "=")
		if ok && validEnvName(k) && !secretVar(k, v) && !steeringVar(k) &&
			strings.IndexByte(v, 0) < 0 {
			set(k, v)
		}
	}
	if _, ok := vars["PATH"]; !ok {
		set("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin")
	}
	set("HOME", in.tmp)
	set("TMPDIR", in.tmp)
	set("SHELL", in.shell)
	set("TERM", "dumb")
	set("PAGER", "cat")
	set("GIT_PAGER", "cat")
	set("GIT_TERMINAL_PROMPT", "0")
	set("GIT_CONFIG_NOSYSTEM", "1")
	set("GIT_CONFIG_GLOBAL", "/dev/null")
	set("GIT_CONFIG_COUNT", itoa(len(gitConfig)))
	for i, kv := range gitConfig {
		set("GIT_CONFIG_KEY_"+itoa(i), kv[0])
		set("GIT_CONFIG_VALUE_"+itoa(i), kv[1])
	}
	for _, kv := range in.toolchain {
		set(kv[0], kv[1])
	}
	if in.goroot != "" {
		set("GOROOT", in.goroot)
	}
	if in.gomodcache != "" {
		set("GOMODCACHE", in.gomodcache)
	}
	if in.gocache != "" {
		set("GOCACHE", in.gocache)
	}
	if _, ok := vars["GOTOOLCHAIN"]; !ok {
		set("GOTOOLCHAIN", "local") // never download a toolchain behind the user's back
	}
	if !in.allowNetwork {
		set("GOPROXY", "off") // fail fast instead of waiting for a DNS that cannot answer
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vars[k])
	}
	return env
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
