package child

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts makes the helper's mount namespace private, so nothing
// mounted here reaches the host (a shared root would propagate it), and
// applies m.
func setupMounts(m *Mounts) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if m.Proc {
		if err := mountProc(); err != nil {
			return err
		}
	}
	for _, o := range m.Overlays {
		if err := o.mount(); err != nil {
			return err
		}
	}
	for _, p := range m.ReadOnly {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	return nil
}

// mountProc mounts a procfs of the helper's PID namespace on /proc.
func mountProc() error {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// bindReadOnly bind-mounts p read-only over itself. The remount keeps
// the flags the mount had (nosuid, nodev, …): in a user namespace the
// kernel refuses to clear them.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", p, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", p, err)
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}

// probeMounts is the probe helper's trial of the mount and UTS steps: it
// returns why each one failed ("" when it worked). dir is a scratch
// directory to bind read-only.
func probeMounts(m *Mounts, hostname string) (mount, proc, uts, stage string) {
	errStr := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return ""
	}
	if m != nil {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			mount = fmt.Sprintf("making the mounts private: %v", err)
		}
		for _, o := range m.Overlays {
			if mount == "" {
				stage = o.probe()
			}
		}
		for _, p := range m.ReadOnly {
			if mount == "" {
				mount = errStr(bindReadOnly(p))
			}
			if mount == "" && unix.Access(p, unix.W_OK) == nil {
				if f, err := os.Create(filepath.Join(p, "probe")); err == nil {
					f.Close()
					mount = "a read-only bind mount stayed writable"
				}
			}
		}
		if m.Proc {
			if proc = errStr(mountProc()); proc == "" && !ownProc() {
				proc = "the new /proc shows other processes"
			}
		}
	}
	if hostname != "" {
		uts = errStr(unix.Sethostname([]byte(hostname)))
	}
	return mount, proc, uts, stage
}

// ownProc reports whether /proc shows this process as PID 1 and no
// process outside its namespace.
func ownProc() bool {
	self, err := os.Readlink("/proc/self")
	if err != nil || self != "1" {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n != 1 {
			// The probe helper has no children: any other PID is foreign.
			return false
		}
	}
	return true
}

// options is the overlay's mount data. Paths escape the characters
// overlayfs splits on. volatile: the layers are thrown away after the
// command, so the overlay never syncs its upper file system (without it,
// tearing the command's mount namespace down runs syncfs on the whole
// file system that holds the stage).
func (o *Overlay) options() string {
	esc := strings.NewReplacer(`\`, `\\`, ",", `\,`, ":", `\:`)
	lowers := make([]string, len(o.Lowers))
	for i, l := range o.Lowers {
		lowers[i] = esc.Replace(l)
	}
	return "lowerdir=" + strings.Join(lowers, ":") + ",upperdir=" + esc.Replace(o.Upper) +
		",workdir=" + esc.Replace(o.Work) + ",userxattr,volatile"
}

func (o *Overlay) mount() error {
	if err := unix.Mount("overlay", o.Target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, o.options()); err != nil {
		return fmt.Errorf("%s %s: %w", StageMountError, o.Target, err)
	}
	return nil
}

// probe mounts o and checks that a file written through it lands in the
// upper layer, not the lower; it returns why not ("" when it works).
func (o *Overlay) probe() string {
	if err := o.mount(); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(filepath.Join(o.Target, "probe"), []byte("x"), 0o600); err != nil {
		return "writing through the overlay: " + err.Error()
	}
	if _, err := os.Stat(filepath.Join(o.Upper, "probe")); err != nil {
		return "a write through the overlay did not reach its upper layer"
	}
	return ""
}
