package exec

import (
	"strings"
	"testing"
)

func TestSecretVar_S2(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"FOO_API_KEY", "x", true},
		{"OPENAI_BASE_URL", "http://x", true},
		{"GITHUB_TOKEN", "x", true},
		{"gh_token", "x", true},
		{"AWS_REGION", "eu", true},
		{"SSH_AUTH_SOCK", "/tmp/s", true},
		{"DB_PASSWORD", "x", true},
		{"STRIPE_KEY", "x", true},
		{"DATABASE_URL", "postgres://localhost/db", true},
		{"PROXY", "http://user:pw@proxy:3128", true},
		{"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus", true},
		{"LANG", "C.UTF-8", false},
		{"MY_SETTING", "kept", false},
		{"DOCS_URL", "https://example.com/x", false},
	} {
		if got := secretVar(tc.name, tc.value); got != tc.want {
			t.Errorf("secretVar(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestCommandEnv_S2(t *testing.T) {
	env := commandEnv(envInput{
		parent: []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C", "HOME=/root", "OPENAI_API_KEY=k",
			"GOFLAGS=-mod=mod", "EDITOR=vim", "GOPROXY=https://u:p@proxy"},
		extra: []string{"A=1", "PATH=/evil", "LD_PRELOAD=/x", "BASH_FUNC_ls%%=() { :; }", "GIT_DIR=/x",
			"X_TOKEN=t", "1BAD=x", "NODE_OPTIONS=--require /x", "GOFLAGS=-v", "NUL=a\x00b"},
		tmp: "/tmp/p", shell: "/bin/bash", goroot: "/go", gomodcache: "/m", gocache: "/c",
	})
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s twice", k)
		}
		got[k] = v
	}
	want := map[string]string{
		"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "HOME": "/tmp/p", "TMPDIR": "/tmp/p",
		"A": "1", "GOFLAGS": "-v", "GOROOT": "/go", "GOMODCACHE": "/m", "GOCACHE": "/c",
		"GOPROXY": "off", "GOTOOLCHAIN": "local", "TERM": "dumb", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat",
		"GIT_CONFIG_KEY_2": "core.hooksPath", "GIT_CONFIG_VALUE_2": "/dev/null",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"OPENAI_API_KEY", "EDITOR", "LD_PRELOAD", "BASH_FUNC_ls%%", "GIT_DIR",
		"X_TOKEN", "1BAD", "NODE_OPTIONS", "NUL"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s passed", k)
		}
	}
}

func TestLayerReport_String(t *testing.T) {
	r := LayerReport{
		Active:      []string{LayerProcessGroup, LayerLandlock},
		Missing:     map[string]string{LayerSeccomp: "not here"},
		LandlockABI: 7,
	}
	s := r.String()
	for _, want := range []string{"process-group      active", "landlock           active (ABI 7)",
		"seccomp            missing: not here"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if !r.Has(LayerLandlock) || r.Has(LayerSeccomp) {
		t.Error("Has is wrong")
	}
}
