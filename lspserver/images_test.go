package lspserver_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
)

// A12, issue 25: a run command's images argument sends each picture to
// the model as an image part of the task message; one that is not there
// says "Unable to read image" and the message goes on.
func TestServer_A12_Issue25_ImagesArgument(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 32)
	h := start(t, setup{script: `{"content":"I see the bug."}`, files: map[string]string{"a.go": twoFuncs, "shots/bug.png": png}})
	arg := map[string]any{"uri": h.uri("a.go"), "instruction": "fix what the screenshot shows",
		"images": []string{h.uri("shots/bug.png"), h.uri("shots/gone.png")}}
	h.mustRun(command.Plan, arg)
	reqs := h.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	req := reqs[0]
	for _, want := range []string{`"type":"image_url"`, `data:image/png;base64,`, "fix what the screenshot shows", "Unable to read image"} {
		if !bytes.Contains(req, []byte(want)) {
			t.Errorf("the model request has no %s:\n%.2000s", want, req)
		}
	}
	if n := bytes.Count(req, []byte(`"type":"image_url"`)); n != 1 {
		t.Errorf("%d image parts, want 1 (the missing one is text)", n)
	}
}

// Issue 25: images the server cannot send are a bad argument, and the
// run does not start: outside the workspace, not named as a picture, one
// too many.
func TestServer_A12_Issue25_BadImagesArgument(t *testing.T) {
	h := start(t, setup{script: `{"content":"never"}`, files: map[string]string{"a.go": twoFuncs, "notes.txt": "x"}})
	five := []string{}
	for range 5 {
		five = append(five, h.uri("a.png"))
	}
	for name, images := range map[string][]string{
		"outside":        {"file:///etc/passwd.png"},
		"not a picture":  {h.uri("notes.txt")},
		"five":           five,
		"not a file URI": {"https://example.com/a.png"},
	} {
		arg := map[string]any{"uri": h.uri("a.go"), "instruction": "look", "images": images}
		if _, err := h.run(command.Plan, arg); err == nil {
			t.Errorf("%s: the run started", name)
		}
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("%d model requests after bad arguments", n)
	}
}
