package headless_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/headless"
)

// reviewTurns report an error and a warning, then summarise.
func reviewTurns(severities ...string) []any {
	var turns []any
	for i, sev := range severities {
		turns = append(turns, call("f"+sev, "report_finding", map[string]any{"path": "a.go", "line": 3 + i, "severity": sev,
			"message": "a " + sev + " finding\x1b[31m"}))
	}
	return append(turns, map[string]any{"content": "Reviewed."})
}

var reviewFiles = map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n"}

// A19 (issue 25): review --fail-on LEVEL exits with ExitFindings (4) when
// a finding is at or above LEVEL, and 0 otherwise.
func TestHeadless_A19_ReviewFailOn(t *testing.T) {
	for _, tt := range []struct {
		name       string
		severities []string
		failOn     string
		want       int
	}{
		{"an error fails --fail-on=error", []string{"warning", "error"}, "error", headless.ExitFindings},
		{"a warning passes --fail-on=error", []string{"warning", "info"}, "error", headless.ExitDone},
		{"a warning fails --fail-on=warning", []string{"info", "warning"}, "warning", headless.ExitFindings},
		{"an info fails --fail-on=info", []string{"info"}, "info", headless.ExitFindings},
		{"no --fail-on, an error: 0", []string{"error"}, "", headless.ExitDone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, stderr, code := scripted(t, reviewFiles, reviewTurns(tt.severities...),
				headless.Options{Mode: agent.ModeReview, Instruction: "review", FailOn: tt.failOn})
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
		})
	}
}

// A19 (issue 25): review --format sarif writes one SARIF 2.1.0 log on
// stdout — valid against the official schema (testdata/sarif) — with a
// result per finding, its level, file and line; what the run prints goes
// to stderr.
func TestHeadless_A19_ReviewSARIF(t *testing.T) {
	_, stdout, stderr, code := scripted(t, reviewFiles, reviewTurns("error", "warning", "info"),
		headless.Options{Mode: agent.ModeReview, Instruction: "review", SARIF: true, Version: "v1.2.3", FailOn: "error"})
	if code != headless.ExitFindings {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, headless.ExitFindings, stderr)
	}
	validateSARIF(t, []byte(stdout))
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name, Version string }
			} `json:"tool"`
			Results []struct {
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "agentls" || log.Runs[0].Tool.Driver.Version != "v1.2.3" {
		t.Fatalf("runs %+v", log.Runs)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		l := r.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s %s:%d %s", r.Level, l.ArtifactLocation.URI, l.Region.StartLine, r.Message.Text))
	}
	want := "error a.go:3 a error finding\x1b[31m|warning a.go:4 a warning finding\x1b[31m|note a.go:5 a info finding\x1b[31m"
	if strings.Join(got, "|") != want {
		t.Errorf("results %q\nwant %q", strings.Join(got, "|"), want)
	}
	if !strings.Contains(stderr, "a.go:3: error: a error finding\\x1b[31m") {
		t.Errorf("the findings are not shown on stderr:\n%s", stderr)
	}
}

// validateSARIF fails the test unless doc is valid SARIF 2.1.0.
func validateSARIF(t *testing.T, doc []byte) {
	t.Helper()
	if err := sarifError(doc); err != nil {
		t.Errorf("not valid SARIF 2.1.0: %v\n%s", err, doc)
	}
}

// sarifError validates doc against the official SARIF 2.1.0 schema.
func sarifError(doc []byte) error {
	const schemaPath = "../../testdata/sarif/sarif-2.1.0-rtm.5.json"
	f, err := os.Open(schemaPath)
	if err != nil {
		return err
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", schemaDoc); err != nil {
		return err
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// A19: the schema check catches a log that is not SARIF 2.1.0 (a wrong
// version, a result without a message, an unknown level), so the test
// above proves something.
func TestValidateSARIF_A19_RejectsBadLog(t *testing.T) {
	for _, bad := range []string{
		`{"version":"2.0.0","runs":[]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"error"}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"info","message":{"text":"m"}}]}]}`,
	} {
		if sarifError([]byte(bad)) == nil {
			t.Errorf("%s passed the schema", bad)
		}
	}
	if err := sarifError([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[]}]}`)); err != nil {
		t.Errorf("a minimal log fails the schema: %v", err)
	}
}
