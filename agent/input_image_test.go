package agent

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentls/agentls/prompts"
)

// pngBytes is the start of a real PNG: its signature and IHDR chunk.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// A12, seed 002 (issue 25): an @path to a picture goes to the model as an
// image, typed by its magic bytes; one that cannot be read, is no image
// or is too large says "Unable to read image: …" and the rest of the
// message goes on.
func TestReadInput_A12_Images(t *testing.T) {
	files := map[string][]byte{
		"shot.png":  pngBytes,
		"photo.JPG": append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte{1}, 100)...),
		"fake.png":  []byte("#!/bin/sh\necho not a picture\n"),
		"huge.webp": append([]byte("RIFF\x00\x00\x00\x00WEBP"), make([]byte, maxImageBytes)...),
	}
	read := func(_ context.Context, p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	text, images, events := ReadInput(t.Context(), "fix the layout in @shot.png and @photo.JPG, not @fake.png or @huge.webp or @gone.gif, thanks", read)
	if len(images) != 2 || images[0].MIME != "image/png" || images[0].Path != "shot.png" || images[1].MIME != "image/jpeg" {
		t.Fatalf("images %+v, want shot.png (png) and photo.JPG (jpeg)", images)
	}
	for _, want := range []string{
		"@shot.png [image attached]",
		"@fake.png [Unable to read image: fake.png is not a PNG, JPEG, GIF or WebP image]",
		"@huge.webp [Unable to read image: huge.webp is 5.0 MiB, over the 5 MiB limit]",
		"@gone.gif [Unable to read image: file not found]",
		", thanks",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "echo not a picture") {
		t.Errorf("a file named .png was inlined as text:\n%s", text)
	}
	warnings := 0
	for _, e := range events {
		if e.Code == "image_unreadable" {
			warnings++
		}
	}
	if warnings != 3 {
		t.Errorf("%d image_unreadable events, want 3: %+v", warnings, events)
	}
}

// A12: the images go with the task message, and a model that refuses
// them (a client error, such as a model without vision) gets the text
// alone, with a warning, instead of failing the run.
func TestRun_A12_ModelRefusingImagesGetsTheText(t *testing.T) {
	refused := fmt.Errorf("%w: HTTP 400: image input is not supported by this model", ErrModel)
	m := &scripted{errs: []error{refused}, resps: []*Response{nil, {Content: "done"}}}
	var events []Event
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Mode: ModePlan,
		Task:     prompts.TaskData{Instruction: "what is wrong in @shot.png"},
		ReadRef:  func(context.Context, string) ([]byte, error) { return pngBytes, nil },
		Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	if out.Status != StatusDone {
		t.Fatalf("status %s: %s", out.Status, out.Summary)
	}
	task := func(r *Request) Message { return r.Messages[1] }
	if first := task(m.reqs[0]); len(first.Images) != 1 || first.Images[0].MIME != "image/png" {
		t.Errorf("first request's task message %+v, want the PNG", first)
	}
	second := task(m.reqs[1])
	if len(second.Images) != 0 || !strings.Contains(second.Content, "[image shot.png] (not sent: the model refused images)") {
		t.Errorf("second request's task message %+v, want the text alone, saying so", second)
	}
	if !hasEventCode(events, "images_refused") {
		t.Errorf("no images_refused warning in %+v", events)
	}
}

func hasEventCode(events []Event, code string) bool {
	for _, e := range events {
		if e.Code == code {
			return true
		}
	}
	return false
}
