package landlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner/procinit"
)

// ErrUnsupported is a sandbox Landlock cannot enforce.
var ErrUnsupported = errors.New("landlock cannot enforce")

// MinABI is the lowest Landlock ABI golem-box uses: ABI 3 restricts truncate.
const MinABI = 3

// ResolveUnixABI is the first ABI that restricts connecting to named UNIX sockets.
const ResolveUnixABI = 9

// etcFiles are the entries of the host's /etc a command may read: what
// the containers bind, plus the account and name-service files (which a
// container gets written by golem-box).
var etcFiles = []string{"/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/ssl",
	"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf"}

// devices are the nodes of /dev a command may use (those of a container's /dev).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Plan is what the helper enforces for one run.
type Plan struct {
	Landlock *procinit.Landlock
	// Dir is the working directory on the host.
	Dir string
	// Env is the command's environment, HOME and TMPDIR pointing at Tmp.
	Env []string
}

// NewPlan computes the rules for sb, the compiled process p and a private
// temporary directory tmp. image is the job's image; only "host" works.
func NewPlan(sb *mountspec.Sandbox, image string, workdir string, env []string, tmp string, host *compile.HostImage) (*Plan, error) {
	if image == "" {
		image = sb.Image
	}
	if image != "" && image != compile.ImageHost {
		return nil, fmt.Errorf("image %q: %w: Landlock runs on the host's own operating system; use image \"host\" or a container backend", image, ErrUnsupported)
	}
	if len(sb.Network.Allow) > 0 {
		return nil, fmt.Errorf("network.allow: %w: a domain allow-list needs a filtering proxy", ErrUnsupported)
	}
	if host == nil {
		host = compile.DetectHost()
	}
	l := &procinit.Landlock{MinABI: MinABI, DenyNet: !sb.Network.Enabled}
	add := func(path string, a procinit.Access) {
		l.Rules = append(l.Rules, procinit.PathRule{Path: path, Access: a})
	}
	mode := func(ro bool) procinit.Access {
		if ro {
			return procinit.Read
		}
		return procinit.Write
	}
	for _, d := range host.Dirs {
		add(d, procinit.Read)
	}
	for _, e := range etcFiles {
		if _, err := os.Stat(e); err == nil {
			add(e, procinit.Read)
		}
	}
	if sb.Network.Enabled {
		if _, err := os.Stat("/etc/resolv.conf"); err == nil {
			add("/etc/resolv.conf", procinit.Read)
		}
	}
	add("/proc", procinit.Read)
	for _, d := range devices {
		if _, err := os.Stat(d); err == nil {
			l.Rules = append(l.Rules, procinit.PathRule{Path: d, Access: procinit.Write, Device: d == "/dev/tty"})
		}
	}
	add(tmp, procinit.Write)
	if sb.Root != "" {
		// Entry by entry, as a container binds them: the top level itself
		// can be listed but gets nothing new. Symbolic links get no rule:
		// what they point to is decided by its own.
		add(sb.Root, procinit.ListOnly)
		des, err := os.ReadDir(sb.Root)
		if err != nil {
			return nil, fmt.Errorf("sandbox.root: %w", err)
		}
		for _, de := range des {
			if de.Type()&os.ModeSymlink != 0 || !(de.IsDir() || de.Type().IsRegular()) {
				continue
			}
			add(filepath.Join(sb.Root, de.Name()), mode(sb.ReadOnly))
		}
	}
	for _, m := range sb.Mounts {
		add(m.Source, mode(m.ReadOnly))
	}
	// A read-only mount inside a writable one (or the reverse) is a rule
	// on a path below another: Landlock grants the union, so a read-only
	// mount under a writable tree would be writable. Refuse it.
	for _, r := range l.Rules {
		if r.Access != procinit.Read {
			continue
		}
		for _, w := range l.Rules {
			if w.Access == procinit.Write && w.Path != r.Path && strings.HasPrefix(r.Path+"/", w.Path+"/") {
				return nil, fmt.Errorf("read-only %s lies inside writable %s: %w: Landlock grants the union of both; use a container backend or make them disjoint", r.Path, w.Path, ErrUnsupported)
			}
		}
	}
	dir := "/"
	if workdir != "" {
		res, err := sb.Resolve(workdir)
		if err != nil {
			return nil, fmt.Errorf("workdir %q: %w", workdir, err)
		}
		dir = res.Host
	} else if sb.Root != "" {
		dir = sb.Root
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	out = append(out, "HOME="+tmp, "TMPDIR="+tmp)
	return &Plan{Landlock: l, Dir: dir, Env: out}, nil
}

// Limitations are what the package documentation lists, for run --explain.
func (b *Backend) Limitations() []string {
	return []string{
		"paths are not remapped: inside, virtual paths are host paths (the working directory is translated, arguments are not)",
		"no pid namespace: host processes are visible, but cannot be signalled or read (Landlock scopes and ptrace rule)",
		"no network namespace: with the network off, inet sockets are refused (seccomp) and TCP bind/connect too (Landlock ABI 4)",
		"before Landlock ABI 9, UNIX sockets cannot be restricted by path: socket(AF_UNIX) is refused",
		"writes to read-only paths fail with \"Permission denied\"",
	}
}
