package lspserver

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// maxImageArgs bounds [command.Args.Images]: the agent sends at most four
// images with one message.
const maxImageArgs = 4

// imageRefs turns the images of a run command into @"path" references
// appended to the instruction, which the agent sends as image parts
// (A12, issue 25). An image outside the workspace, not named as a
// picture, or one too many is a bad argument: the run does not start.
// Whether the file is a readable picture of an accepted type is the
// agent's check, by its magic bytes.
func (s *Server) imageRefs(a *command.Args) (string, error) {
	if len(a.Images) == 0 {
		return a.Instruction, nil
	}
	if len(a.Images) > maxImageArgs {
		return "", invalidParams(fmt.Sprintf("images: %d given, at most %d", len(a.Images), maxImageArgs))
	}
	refs := make([]string, 0, len(a.Images))
	for _, raw := range a.Images {
		rel, err := s.resolveTarget(raw)
		if err != nil {
			return "", err
		}
		switch {
		case rel == "." || strings.ContainsAny(rel, "\"\n\r"):
			return "", invalidParams(fmt.Sprintf("images: %q cannot be sent as an image", raw))
		case !agent.IsImagePath(rel):
			return "", invalidParams(fmt.Sprintf("images: %s is not a .png, .jpg, .jpeg, .gif or .webp file", rel))
		}
		refs = append(refs, `@"`+rel+`"`)
	}
	return a.Instruction + "\n\nImages: " + strings.Join(refs, " "), nil
}
