package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Checkers for commands that act on the whole system: signals, scheduled
// jobs and services.

func killCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	var pids []field
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--":
			pids = append(pids, args[i+1:]...)
			i = len(args)
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			a.note(sandbox.Allow, "shell.read_only", c.disp, "lists signals")
			return
		case v == "-s" || v == "-n" || v == "--signal":
			i++
		case i == 0 && strings.HasPrefix(v, "-"): // the signal, as in -9 or -KILL
		default:
			pids = append(pids, args[i])
		}
	}
	for _, p := range pids {
		if p.s == "-1" || p.s == "1" {
			a.note(sandbox.Deny, "shell.kill_all", c.disp, "signals every process, or init")
		}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
}

func crontabCmd(a *analyzer, c *call, s *cmdSpec) {
	if o := parseOpts(c.args(), "u"); len(o.ops) == 0 && o.has("l") && !o.has("r", "e") {
		a.note(sandbox.Ask, "shell.read_outside", c.disp, "lists scheduled jobs")
		return
	}
	a.note(sandbox.Deny, "shell.persistence", c.disp, "installs or removes scheduled jobs")
}

// serviceCmd handles systemctl, launchctl and loginctl: status queries run,
// anything that starts, stops or installs services is denied.
func serviceCmd(a *analyzer, c *call, s *cmdSpec) {
	o := parseOpts(c.args(), "tpHMns", "type", "property", "host", "machine", "lines", "output")
	sub := ""
	if len(o.ops) > 0 {
		sub = o.ops[0].s
	}
	switch {
	case sub == "" && c.name != "launchctl", strings.HasPrefix(sub, "list"), strings.HasPrefix(sub, "is-"),
		strings.HasPrefix(sub, "show"), sub == "status", sub == "cat", sub == "get-default", sub == "help",
		sub == "print", sub == "session-status", sub == "user-status", sub == "seat-status", sub == "blame":
		a.note(s.dec, s.rule, c.disp, "queries services")
	case sub == "enable", sub == "link", sub == "reenable", strings.HasPrefix(sub, "preset"), sub == "mask",
		strings.HasPrefix(sub, "add-"), sub == "edit", sub == "set-property", sub == "set-default", sub == "load",
		sub == "bootstrap", sub == "submit", sub == "enable-linger", sub == "revert":
		a.note(sandbox.Deny, "shell.persistence", c.disp, "installs a service that runs later")
	default:
		a.note(sandbox.Deny, "shell.system_control", c.disp, "starts, stops or changes system services")
	}
}
