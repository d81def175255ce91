package headless

import (
	"strings"
	"testing"
)

// A19 (issue 25): every warning the server sends is a warning event with
// --json — once, though a warning the user must act on comes both as
// window/logMessage and as window/showMessage; other levels stay log
// events.
func TestPrinter_A19_WarningEvents(t *testing.T) {
	var out strings.Builder
	p := &printer{json: true, w: &out, errw: &out}
	p.log(2, "MCP server x crashed")
	p.log(2, "MCP server x crashed") // the same, as showMessage
	p.log(3, "compacted")
	p.log(2, "hook y failed")
	want := `{"message":"MCP server x crashed","type":"warning"}
{"level":"info","message":"compacted","type":"log"}
{"message":"hook y failed","type":"warning"}
`
	if out.String() != want {
		t.Errorf("events:\n%s\nwant:\n%s", out.String(), want)
	}
}
