package lspserver

import (
	"strconv"
	"strings"
)

// Confirmation per client (E14). A client that advertises
// changeAnnotationSupport may still apply an annotated edit with
// needsConfirmation at once, without showing anything: the capability
// says it understands annotations, not that it asks. So the server
// trusts needsConfirmation only for the clients below, known by their
// clientInfo to show annotated edits for confirmation, and for our own
// plugins, which announce capabilities.experimental.agentls. Every other
// client (Sublime Text LSP, Helix, eglot, lsp-mode, Kate, unknown ones)
// is asked with window/showMessageRequest, the diff in the message, before
// the edit is sent. The README lists the same clients.
//
//   - VS Code and its builds: "Visual Studio Code" (also "… - Insiders"),
//     "Code - OSS", "VSCodium", "code-server" (the refactor preview);
//   - Neovim from 0.12 ("Neovim", version >= 0.12.0: its built-in
//     applyEdit asks for annotated edits that need confirmation);
//   - Eclipse lsp4e (the product name: "Eclipse IDE", "Eclipse Platform",
//     …);
//   - coc.nvim.

// Clients without an input box (E19). The server tells our plugins (VS
// Code, Neovim, the headless client) from every other client by
// capabilities.experimental.agentls alone: eglot and Kate send no
// clientInfo, so no name list could find them. Our plugins ask the user for
// an instruction, wait for a command's result and pick answers by title;
// other clients get an instruction from an "agentls:" comment
// (instruction_comment.go), detached commands that answer at once
// (execute_detached.go) and questions with the safe answer first
// (confirm.go), because eglot pre-fills the first one.

// confirmsAnnotations reports whether a client shows edits annotated with
// needsConfirmation to the user before applying them.
func confirmsAnnotations(name, version string, ownPlugin bool) bool {
	if ownPlugin {
		return true
	}
	switch {
	case strings.HasPrefix(name, "Visual Studio Code"), name == "Code - OSS", name == "VSCodium", name == "code-server":
		return true
	case name == "Neovim":
		return versionAtLeast(version, 0, 12)
	case strings.HasPrefix(name, "Eclipse"):
		return true
	case name == "coc.nvim":
		return true
	}
	return false
}

// versionAtLeast reports whether a "major.minor[.patch…]" version is at
// least major.minor; a version it cannot read is not.
func versionAtLeast(v string, major, minor int) bool {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr, err2 := strconv.Atoi(leadingDigits(parts[1]))
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || maj == major && mnr >= minor
}

func leadingDigits(s string) string {
	for i, r := range s {
		if r < '0' || r > '9' {
			return s[:i]
		}
	}
	return s
}
