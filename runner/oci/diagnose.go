package oci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/golem-box/golem-box/runner"
)

// escape is a published container escape in a runtime, fixed in a version.
type escape struct {
	runtime string
	cve     string
	fixed   string // the first upstream version with the fix
	// debian is the first Debian package version of the installed line
	// that carries the fix as a backport, when there is one.
	debian string
	what   string
}

// escapes lists the runtime vulnerabilities that let a container reach the
// host. golem-box's own specs (no capabilities, a user namespace, a
// read-only root it builds itself, no /proc working directory) blunt
// several of them; doctor still says so, since the runtime is the last
// line.
var escapes = []escape{
	{"runc", "CVE-2019-5736", "1.0.0-rc7", "", "a container process can overwrite the host's runc binary through /proc/self/exe"},
	{"runc", "CVE-2021-30465", "1.0.0-rc95", "", "a symlink-exchange race in mount destinations lets a container bind host paths"},
	{"runc", "CVE-2024-21626", "1.1.12", "1.1.5+ds1-1+deb12u1", "a leaked host file descriptor lets a working directory of /proc/self/fd/N reach the host (golem-box refuses such working directories)"},
	{"runc", "CVE-2025-31133", "1.2.8", "", "a race on the masked /dev/null lets a malicious root filesystem write host procfs files (golem-box's root filesystems are its own)"},
	{"runc", "CVE-2025-52565", "1.2.8", "", "a race on /dev/console binds lets a malicious root filesystem write host procfs files"},
	{"runc", "CVE-2025-52881", "1.2.8", "", "shared mounts can redirect runc's writes to /proc (needs a second, attacker-controlled container)"},
	{"crun", "CVE-2022-27650", "1.4.4", "", "processes started with non-empty inheritable capabilities (golem-box grants none)"},
}

// version is the runtime's version from --version: "1.1.5+ds1", "1.8.1".
func (b *Backend) version(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, b.path, "--version").Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	f := strings.Fields(first)
	for i, w := range f {
		if w == "version" && i+1 < len(f) {
			return f[i+1]
		}
	}
	return strings.TrimSpace(first)
}

// debianVersion is the version of the Debian package that owns the binary.
func debianVersion(ctx context.Context, path string) string {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-S", path).Output()
	if err != nil {
		return ""
	}
	pkg, _, ok := strings.Cut(strings.TrimSpace(string(out)), ":")
	if !ok {
		return ""
	}
	v, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(v))
}

// debianAtLeast compares Debian package versions with dpkg itself.
func debianAtLeast(ctx context.Context, have, want string) bool {
	return exec.CommandContext(ctx, "dpkg", "--compare-versions", have, "ge", want).Run() == nil
}

// Diagnose says whether the runtime can run here, its version, and what
// to know about it: published escapes its version predates, and how
// golem-box works around the host's cgroup layout.
func (b *Backend) Diagnose(ctx context.Context) runner.Diagnosis {
	d := runner.FromAvailable(b.name, b.Available(ctx))
	if !d.Usable {
		return d
	}
	rt := filepath.Base(b.path)
	d.Version = b.version(ctx)
	if n, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(n)) == "0" {
		d.Usable = false
		d.Reason = "user namespaces are disabled (user.max_user_namespaces = 0); golem-box's containers map the invoking user in one"
		d.Fix = "sudo sysctl -w user.max_user_namespaces=15000"
		return d
	}
	deb := debianVersion(ctx, b.path)
	for _, e := range escapes {
		if e.runtime != rt || !versionLess(d.Version, e.fixed) {
			continue
		}
		if e.debian != "" && deb != "" && debianAtLeast(ctx, deb, e.debian) {
			continue
		}
		msg := fmt.Sprintf("%s %s predates the fix for %s (%s), fixed in %s", rt, d.Version, e.cve, e.what, e.fixed)
		if deb != "" {
			msg += "; the Debian package is " + deb
		}
		d.Notes = append(d.Notes, runner.Note{Level: "warning", Msg: msg,
			Fix: fmt.Sprintf("upgrade %s to %s or later (sudo apt-get install --only-upgrade %s picks up Debian's security backports)", rt, e.fixed, rt)})
	}
	if !b.Features().RecursiveReadOnly {
		d.Notes = append(d.Notes, runner.Note{Level: "info",
			Msg: rt + " " + d.Version + " has no recursive read-only mounts (rro): a read-only mount whose source has submounts is refused rather than left partly writable",
			Fix: "runc >= 1.1 or crun >= 1.9 on kernel >= 5.12"})
	}
	if b.hybrid {
		d.Notes = append(d.Notes, runner.Note{Level: "info",
			Msg: "cgroups are in hybrid mode, which crun refuses; golem-box starts crun in a private mount namespace without /sys/fs/cgroup/unified (the host is untouched)",
			Fix: "boot with systemd.unified_cgroup_hierarchy=1 for pure cgroup v2"})
	}
	return d
}

// versionLess compares upstream versions such as 1.1.5+ds1, 1.0.0-rc95 and
// 1.2.8: numbers first, then a release candidate before its release. An
// unreadable version is treated as old.
func versionLess(have, want string) bool {
	hn, hrc, ok := parseVersion(have)
	if !ok {
		return true
	}
	wn, wrc, _ := parseVersion(want)
	for i := range 3 {
		if hn[i] != wn[i] {
			return hn[i] < wn[i]
		}
	}
	return hrc < wrc
}

// parseVersion reads major.minor.patch and an rc number (maxInt when the
// version is a release).
func parseVersion(v string) (nums [3]int, rc int, ok bool) {
	v = strings.TrimPrefix(v, "v")
	core, pre, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return nums, 0, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nums, 0, false
		}
		nums[i] = n
	}
	rc = int(^uint(0) >> 1)
	if r, found := strings.CutPrefix(pre, "rc"); found {
		r = strings.TrimPrefix(r, ".")
		if n, err := strconv.Atoi(r); err == nil {
			rc = n
		}
	}
	return nums, rc, true
}
