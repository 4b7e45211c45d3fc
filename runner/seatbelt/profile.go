package seatbelt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
)

// ErrUnsupported is a sandbox Seatbelt cannot enforce.
var ErrUnsupported = errors.New("seatbelt cannot enforce")

// osReadable are the operating system's paths every program needs.
var osReadable = []string{"/System", "/usr", "/bin", "/sbin", "/Library/Apple", "/Library/Preferences",
	"/private/etc", "/private/var/db/dyld", "/private/var/db/timezone", "/dev/urandom", "/dev/random"}

// devWritable are the devices any command writes to.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"}

// Canonical resolves a path as Seatbelt will see it (symlinks followed).
type Canonical func(string) string

// Profile writes the profile for sb, with tmp as the private temporary
// directory. canon resolves paths (filepath.EvalSymlinks on the host).
func Profile(sb *mountspec.Sandbox, tmp string, canon Canonical) (string, error) {
	if len(sb.Network.Allow) > 0 {
		return "", fmt.Errorf("network.allow: %w: a domain allow-list needs a filtering proxy", ErrUnsupported)
	}
	if sb.Image != "" && sb.Image != "host" {
		return "", fmt.Errorf("image %q: %w: Seatbelt runs on the host's own system; use a container backend", sb.Image, ErrUnsupported)
	}
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString(";; processes and the system services a shell and its tools use\n")
	b.WriteString("(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow mach-lookup (global-name \"com.apple.system.logger\" \"com.apple.system.notification_center\"))\n")
	b.WriteString("(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))\n")
	b.WriteString(";; the operating system, read-only\n(allow file-read-metadata)\n")
	b.WriteString("(allow file-read*\n")
	for _, p := range osReadable {
		fmt.Fprintf(&b, "  (subpath %s)\n", quote(p))
	}
	b.WriteString(")\n(allow file-read* file-write-data\n")
	for _, p := range devWritable {
		fmt.Fprintf(&b, "  (literal %s)\n", quote(p))
	}
	b.WriteString(")\n(allow file-ioctl (literal \"/dev/tty\"))\n")
	b.WriteString(";; the sandbox, at its host paths\n")
	type grant struct {
		path string
		ro   bool
		what string
	}
	var grants []grant
	if sb.Root != "" {
		grants = append(grants, grant{sb.Root, sb.ReadOnly, "root"})
	}
	for i, m := range sb.Mounts {
		grants = append(grants, grant{m.Source, m.ReadOnly, fmt.Sprintf("mounts[%d] %s", i, m.Target)})
	}
	grants = append(grants, grant{tmp, false, "private temporary directory"})
	for _, g := range grants {
		p := canon(g.path)
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s: %q is not absolute", g.what, p)
		}
		mode := "file-read* file-write*"
		if g.ro {
			mode = "file-read*"
		}
		fmt.Fprintf(&b, ";; %s\n(allow %s (subpath %s))\n", g.what, mode, quote(p))
	}
	// Read-only mounts inside writable ones: Seatbelt's later rules win,
	// so deny their writes after the grants.
	for _, g := range grants {
		if g.ro {
			fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", quote(canon(g.path)))
		}
	}
	if sb.Network.Enabled {
		b.WriteString(";; network on\n(allow network*)\n(allow mach-lookup (global-name \"com.apple.dnssd.service\" \"com.apple.SystemConfiguration.configd\"))\n")
	} else {
		b.WriteString(";; network off: the default deny covers every socket\n")
	}
	return b.String(), nil
}

// quote writes a Scheme string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
