package builtin

import (
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"

	"os"
	"path/filepath"
	"testing"
)

// BenchmarkVet measures the gateway's decisions per second on one core
// over a mixed corpus of path, URL and SQL calls (issue target: at least
// 200,000/s), every step up to and including policy, no side effects.
//
//	go test -run '^$' -bench Vet -cpu 1 ./tools/
func BenchmarkVet(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := tools.LoadPolicy(tools.ProfileEditor, "", "")
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.MustRegister(All()...)
	env := &tools.Env{Root: root}
	p.Apply(env)
	env.Limits.HTTP = nil
	pol := tools.DefaultPolicy(tools.ProfileEditor)
	pol.HTTP = &netguard.Policy{Allow: []string{"https://api.github.com", "https://pkg.go.dev"}}
	if err := pol.HTTP.Validate(); err != nil {
		b.Fatal(err)
	}
	pol.Apply(env)
	r := newGateway(reg, env, &tools.GatewayOptions{Allowed: reg.Names(), Policy: pol})
	corpus := []struct{ tool, args string }{
		{"read_file", `{"path":"src/main.go"}`},
		{"read_file", `{"path":"../outside/secret.txt"}`},
		{"write_file", `{"path":"src/new.go","content":"x"}`},
		{"http_fetch", `{"url":"https://api.github.com/repos/golang/go"}`},
		{"http_fetch", `{"url":"https://169.254.169.254/latest/meta-data"}`},
		{"sql_query", `{"database":"app.db","query":"SELECT name FROM users WHERE id = 1"}`},
		{"sql_query", `{"database":"app.db","query":"ATTACH 'x.db' AS x"}`},
		{"list_dir", `{"path":"src"}`},
	}
	ctx := b.Context()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		c := corpus[n%len(corpus)]
		if v := r.Vet(ctx, c.tool, c.args); v.Decision == "" {
			b.Fatal("no decision")
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "decisions/s")
}
