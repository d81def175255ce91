package lspserver

import "testing"

// E14: annotations are trusted only for clients known to show them.
func TestConfirmsAnnotations_E14(t *testing.T) {
	for _, c := range []struct {
		name, version string
		own, want     bool
	}{
		{"Visual Studio Code", "1.101.0", false, true},
		{"Visual Studio Code - Insiders", "1.102.0-insider", false, true},
		{"Code - OSS", "1.90.0", false, true},
		{"VSCodium", "1.99.0", false, true},
		{"code-server", "4.100.0", false, true},
		{"Neovim", "0.12.0", false, true},
		{"Neovim", "0.13.1", false, true},
		{"Neovim", "1.0.0", false, true},
		{"Neovim", "0.11.4", false, false},
		{"Neovim", "0.7.2", false, false},
		{"Neovim", "", false, false},
		{"Neovim", "0.x", false, false},
		{"Eclipse IDE", "0.27.0", false, true},
		{"coc.nvim", "0.0.82", false, true},
		{"Sublime Text LSP", "2.3.0", false, false},
		{"helix", "25.01", false, false},
		{"Eglot", "1.17", false, false},
		{"emacs", "29.4", false, false},
		{"Kate", "24.12", false, false},
		{"", "", false, false},
		{"visual studio code", "1.0", false, false}, // names are exact
		{"Sublime Text LSP", "2.3.0", true, true},   // it runs our plugin
		{"", "", true, true},
	} {
		if got := confirmsAnnotations(c.name, c.version, c.own); got != c.want {
			t.Errorf("confirmsAnnotations(%q, %q, own=%v) = %v, want %v", c.name, c.version, c.own, got, c.want)
		}
	}
}

// E14: how a proposal reaches the editor.
func TestChooseFlow_E14(t *testing.T) {
	trusted := clientCaps{confirmsAnnotations: true}
	for _, c := range []struct {
		name              string
		caps              clientCaps
		openOrCreate, pre bool
		want              editFlow
	}{
		{"preapproved, untrusted", clientCaps{}, false, true, flowSend},
		{"untrusted, open", clientCaps{}, true, false, flowAsk},
		{"untrusted with showDocument", clientCaps{showDocument: true}, false, false, flowAsk},
		{"trusted, open", trusted, true, false, flowSend},
		{"trusted, closed, showDocument", clientCaps{confirmsAnnotations: true, showDocument: true}, false, false, flowOpenFirst},
		{"trusted, closed, our plugin", clientCaps{confirmsAnnotations: true, ownPlugin: true}, false, false, flowSend},
		{"trusted, closed, nothing else", trusted, false, false, flowAsk},
	} {
		if got := chooseFlow(c.caps, c.openOrCreate, c.pre); got != c.want {
			t.Errorf("%s: flow %d, want %d", c.name, got, c.want)
		}
	}
}
