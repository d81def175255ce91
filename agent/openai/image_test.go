package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent"
)

// A12, seed 002 (issue 25): a user message with images goes to the model
// as content parts through openai-go: its text, then each image as a
// base64 data URL with its type.
func TestStream_A12_ImagesAsContentParts(t *testing.T) {
	srv := serve(t, `{"content":"a red dot"}`)
	img := []byte("\x89PNG\r\n\x1a\nrest")
	req := &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "what is this?",
		Images: []agent.Image{{MIME: "image/png", Path: "dot.png", Data: img}}}}}
	if _, _, err := run(t, newModel(t, srv.URL, nil), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0], &body); err != nil {
		t.Fatalf("request body: %v\n%s", err, srv.Requests()[0])
	}
	parts := body.Messages[0].Content
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
	if len(parts) != 2 || parts[0].Type != "text" || parts[0].Text != "what is this?" ||
		parts[1].Type != "image_url" || parts[1].ImageURL.URL != want {
		t.Errorf("content parts %+v, want the text then the PNG as %s", parts, want)
	}
}
