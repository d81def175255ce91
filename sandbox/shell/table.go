package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/sandbox"
)

// cmdSpec is the built-in rule for one command name: a fixed decision, or
// a checker that looks at the arguments (and notes every decision itself,
// starting from the spec's own).
type cmdSpec struct {
	dec    sandbox.Decision
	rule   string
	reason string
	check  func(a *analyzer, c *call, s *cmdSpec)
	net    bool // sends data over the network: a secret read before it is exfiltration
}

// shellTable maps command names to their rules. It is data: each family
// below is one line of names and one rule, and shell_table_test.go holds
// examples for every rule. It is built on first use ([table]), not at
// init: every agentls process links this package, and most starts (serve,
// plan, review, version) analyse no command line before they need to
// (704 allocations, 0.2 ms; issue 16).
var (
	shellTable = map[string]*cmdSpec{}
	tableOnce  sync.Once
)

// table returns shellTable, built.
func table() map[string]*cmdSpec {
	tableOnce.Do(buildTable)
	return shellTable
}

func register(names string, s cmdSpec) {
	for _, n := range strings.Fields(names) {
		sp := s
		shellTable[n] = &sp
	}
}

func buildTable() {
	ro := func(check func(*analyzer, *call, *cmdSpec)) cmdSpec {
		return cmdSpec{dec: sandbox.Allow, rule: "shell.read_only", reason: "read-only command", check: check}
	}
	register(`true false : pwd whoami id groups uname arch nproc hostid logname users tty cal
		uptime locale sleep seq yes basename dirname expr test [ factor numfmt tput clear getconf
		which type whereis realpath readlink tr printf exit return break continue shift wait jobs
		fg umask ulimit getopts times help let logout shopt unset read mapfile readarray
		dirs compgen free lscpu lsb_release df ps pgrep`, ro(nil))
	register("echo", ro(echoCmd))
	register("bg disown", cmdSpec{dec: sandbox.Ask, rule: "shell.background", reason: "keeps a job running after the command line ends"})
	register("date", ro(askIf(sandbox.Ask, "s", "set")))
	register("hostname", ro(askIfOperands))
	register("set", ro(setCmd))
	register("cd pushd popd", ro(cdCmd))
	register("printenv", ro(printenvCmd))

	register("less more", ro(readCmd("bhjkpPtTxyz", "o")))
	register("cat tac nl rev wc comm lsattr zcat bzcat xzcat zstdcat lzcat look md5sum "+
		"sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum", ro(readCmd("", "")))
	register("ls dir vdir", ro(readCmd("IwT", "")))
	register("head", ro(readCmd("nc", "")))
	register("tail", ro(readCmd("ncs", "")))
	register("stat", ro(readCmd("c", "")))
	register("file", ro(readCmd("mfeP", "")))
	register("du", ro(readCmd("dBtX", "")))
	register("tree", ro(readCmd("LPIH", "o")))
	register("od", ro(readCmd("AjNtw", "")))
	register("hexdump", ro(readCmd("nsef", "")))
	register("strings", ro(readCmd("nte", "")))
	register("fold", ro(readCmd("w", "")))
	register("fmt", ro(readCmd("wgp", "")))
	register("column", ro(readCmd("sctoNORWd", "")))
	register("paste", ro(readCmd("d", "")))
	register("join", ro(readCmd("tj12oe", "")))
	register("cut", ro(readCmd("dfcb", "")))
	register("expand unexpand", ro(readCmd("t", "")))
	register("diff diff3", ro(readCmd("UCIFSxXLWD", "")))
	register("sdiff", ro(readCmd("UCIFSxXLWDw", "o")))
	register("cmp", ro(readCmd("inI", "")))
	register("sort", ro(readCmd("ktSTP", "o")))
	register("shuf", ro(readCmd("niH", "o")))
	register("uniq", ro(readCmd("fsw", "2")))
	register("xxd", ro(readCmd("lscgon", "2")))
	register("base64 base32", ro(readCmd("w", "")))
	register("iconv", ro(readCmd("ft", "o")))
	register("grep egrep fgrep rgrep zgrep", ro(grepCmd("efmABCdD", "regexp", "file", "max-count", "after-context",
		"before-context", "context", "devices", "directories", "label", "group-separator")))
	register("rg", ro(grepCmd("efgtTmABCMjrEd", "regexp", "file", "glob", "type", "type-not", "max-count",
		"replace", "pre", "pre-glob", "max-depth", "encoding", "hostname-bin")))
	register("find", ro(findCmd))
	register("jq", ro(jqCmd))
	register("sed", ro(sedCmd))
	register("tee", ro(teeCmd))

	ask := func(rule, reason string, check func(*analyzer, *call, *cmdSpec)) cmdSpec {
		return cmdSpec{dec: sandbox.Ask, rule: rule, reason: reason, check: check}
	}
	del := ask("shell.workspace_delete", "deletes files", deleteCmd)
	register("rm rmdir unlink shred srm wipe", del)
	wr := func(short string) cmdSpec { return ask("shell.workspace_write", "writes files", writeCmd(short)) }
	register("touch", wr("dtr"))
	register("mkdir mkfifo", wr("mZ"))
	register("truncate", wr("sr"))
	register("mknod sponge patch split csplit", wr("oiblpnf"))
	register("cp install", ask("shell.workspace_write", "copies files", copyCmd))
	register("mv", ask("shell.workspace_write", "moves files", copyCmd))
	register("ln link", ask("shell.workspace_write", "creates links", lnCmd))
	register("chmod chown chgrp chattr setfacl", ask("shell.workspace_write", "changes permissions", chmodCmd))
	register("dd", ask("shell.dd", "copies raw data", ddCmd))
	register("tar", ask("shell.workspace_write", "extracts or creates archives", tarCmd))
	register("zip unzip gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 compress uncompress 7z 7za",
		ask("shell.workspace_write", "compresses or extracts files", archiveCmd))

	net := func(check func(*analyzer, *call, *cmdSpec)) cmdSpec {
		s := ask("shell.network", "uses the network", check)
		s.net = true
		return s
	}
	register("curl", net(curlCmd))
	register("wget", net(wgetCmd))
	register("nc ncat netcat", net(ncCmd))
	register("socat", net(socatCmd))
	register("ssh", net(sshCmd))
	register("scp sftp rsync", net(netCopyCmd))
	register(`telnet ftp tftp lftp ping ping6 traceroute tracepath mtr dig nslookup host whois nmap
		aria2c axel http https xh gh hub websocat grpcurl openssl kubectl helm terraform aws gcloud az
		docker-compose`, net(nil))
	register(`apt apt-get aptitude yum dnf zypper pacman apk brew snap flatpak port pip pip3 pipx uv
		poetry conda mamba gem bundle bundler composer`,
		ask("shell.package_manager", "installs packages from the network, which can run their code", nil))
	register("docker podman", ask("shell.container", "runs containers", dockerCmd))

	register("sh bash dash zsh ksh mksh ash yash posh fish csh tcsh", ask("shell.interpreter", "runs a shell", shellCmd))
	register(`python python2 python3 pypy pypy3 perl ruby node nodejs deno bun php lua luajit Rscript
		julia tclsh wish pwsh powershell osascript expect irb groovy jshell swift`,
		ask("shell.interpreter", "runs an interpreter, which can do anything", interpCmd))
	register("awk gawk mawk nawk", ask("shell.interpreter", "awk programs can run commands and write files", awkCmd))
	register(`make gmake cmake ninja bazel gradle gradlew mvn ant meson just task scons npm npx yarn pnpm
		tsc javac java gcc cc clang g++ clang++ c++ rustc cargo-make`,
		ask("shell.build", "runs a build or project scripts", buildCmd))
	register("vim vi nvim nano emacs ed ex code subl pico joe micro view gvim vimdiff rvim",
		ask("shell.editor", "opens an editor", editorCmd))
	register("man", ask("shell.interactive", "a command the policy asks about", manCmd))
	register("info pkill killall history fc enable bind complete xdg-open open",
		ask("shell.interactive", "a command the policy asks about", nil))
	register("iptables ip6tables iptables-restore ip6tables-restore iptables-save ip6tables-save nft ufw firewall-cmd ebtables arptables",
		cmdSpec{dec: sandbox.Deny, rule: "shell.system_control", reason: "changes the packet filter", check: firewallCmd})
	register("git", ro(gitCmd))
	register("go", ro(goCmd))
	register("gofmt", ro(gofmtCmd))
	register("cargo", ro(cargoCmd))
	register("kill", ask("shell.kill", "sends signals to processes", killCmd))

	deny := func(rule, reason string) cmdSpec { return cmdSpec{dec: sandbox.Deny, rule: rule, reason: reason} }
	register("sudo su doas pkexec runuser run0 sudoedit ksu calife nsenter setcap sg newgrp",
		deny("shell.privilege_escalation", "runs a command with other privileges"))
	register("reboot shutdown halt poweroff init telinit", deny("shell.system_power", "stops or restarts the machine"))
	register(`mkfs mke2fs mkswap mkdosfs mkntfs mkexfatfs fdisk sfdisk cfdisk gdisk sgdisk parted wipefs
		blkdiscard hdparm cryptsetup losetup swapon swapoff mount umount lvremove vgremove pvremove`,
		deny("shell.disk", "formats, partitions or mounts disks"))
	register("insmod rmmod modprobe kexec", deny("shell.kernel", "changes the running kernel"))
	register(`useradd userdel usermod adduser deluser passwd chpasswd visudo vipw vigr groupadd groupdel
		groupmod gpasswd chsh chfn newusers chage`, deny("shell.accounts", "changes system accounts"))
	register("at batch service update-rc.d chkconfig rc-update", deny("shell.persistence", "schedules or installs services"))
	register("killall5", deny("shell.kill_all", "kills every process"))
	register("crontab", ask("shell.persistence", "edits scheduled jobs", crontabCmd))
	register("systemctl launchctl loginctl", ro(serviceCmd))
	register("sysctl", ro(askIf(sandbox.Deny, "w", "write")))

	registerProject()
	registerEvalBuiltins()
	registerWrappers()
	for n := range shellTable {
		shellNames = append(shellNames, n)
	}
	slices.Sort(shellNames)
}

// shellNames are the table's names in order, for deterministic searches;
// set with the table.
var shellNames []string

// tableNames returns shellNames, built.
func tableNames() []string {
	tableOnce.Do(buildTable)
	return shellNames
}

// lookupSpec finds the rule for name, also for versioned names such as
// python3.12 or mkfs.ext4.
func lookupSpec(name string) *cmdSpec {
	t := table()
	if s := t[name]; s != nil {
		return s
	}
	if i := strings.IndexAny(name, ".-"); i > 0 {
		if s := t[name[:i]]; s != nil {
			return s
		}
	}
	if v := strings.TrimRight(name, "0123456789."); v != name && v != "" {
		return t[v]
	}
	return nil
}

// opts is a parsed command line: options with their values, and operands.
type opts struct {
	flags []optVal
	ops   []field
}

type optVal struct {
	name   string // "r" for -r, "recursive" for --recursive
	val    field
	hasVal bool
	long   bool // given with two dashes
}

// parseOpts splits args into options and operands, GNU style. short lists
// the short options that take a value; long lists the long options that
// take the next argument as their value when it is not given with "=".
func parseOpts(args []field, short string, long ...string) opts {
	var o opts
	for i := 0; i < len(args); i++ {
		s := args[i].s
		switch {
		case s == "--":
			o.ops = append(o.ops, args[i+1:]...)
			return o
		case len(s) < 2 || s[0] != '-':
			o.ops = append(o.ops, args[i])
			continue
		case strings.HasPrefix(s, "--"):
			name, val, ok := strings.Cut(s[2:], "=")
			ov := optVal{name: name, val: field{s: val}, hasVal: ok, long: true}
			if !ok && slices.Contains(long, name) && i+1 < len(args) {
				i++
				ov.val, ov.hasVal = args[i], true
			}
			o.flags = append(o.flags, ov)
			continue
		}
		for j := 1; j < len(s); j++ {
			ch := s[j : j+1]
			if !strings.Contains(short, ch) {
				o.flags = append(o.flags, optVal{name: ch})
				continue
			}
			ov := optVal{name: ch, hasVal: true}
			switch {
			case j+1 < len(s):
				ov.val = field{s: s[j+1:]}
			case i+1 < len(args):
				i++
				ov.val = args[i]
			default:
				ov.hasVal = false
			}
			o.flags = append(o.flags, ov)
			break
		}
	}
	return o
}

func (o *opts) has(names ...string) bool {
	for _, f := range o.flags {
		if slices.Contains(names, f.name) {
			return true
		}
	}
	return false
}

func (o *opts) vals(names ...string) []field {
	var out []field
	for _, f := range o.flags {
		if f.hasVal && slices.Contains(names, f.name) {
			out = append(out, f.val)
		}
	}
	return out
}
