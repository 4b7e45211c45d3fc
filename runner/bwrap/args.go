package bwrap

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	compile "github.com/golem-box/golem-box/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// ErrUnsupported is a spec entry bubblewrap cannot express.
var ErrUnsupported = errors.New("bubblewrap cannot enforce")

// FDs are the descriptors bwrap is given.
type FDs struct {
	// Seccomp holds the filter program (--seccomp).
	Seccomp int
	// Status receives bwrap's JSON status (--json-status-fd).
	Status int
}

// PathKind says whether a path exists in the host's view of a kernel
// filesystem (/proc) and is a directory: masked paths are hidden by a
// tmpfs or by /dev/null accordingly, and skipped when absent, as runc does.
type PathKind func(path string) (exists, dir bool)

// HostKind reads the kind from the host's own /proc.
func HostKind(p string) (bool, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return false, false
	}
	return true, fi.IsDir()
}

// Args translates a compiled bundle into bwrap's arguments (without the
// program name); the bundle's files are where its spec says.
func Args(b *compile.Bundle, fds FDs, kind PathKind) ([]string, error) {
	s := b.Spec
	if s.Process == nil || s.Linux == nil || s.Root == nil {
		return nil, errors.New("bwrap: incomplete spec")
	}
	p := s.Process
	a := []string{"--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL"}

	// Namespaces: all of them, and the network only when the spec has one.
	want := map[specs.LinuxNamespaceType]bool{}
	for _, ns := range s.Linux.Namespaces {
		if ns.Path != "" {
			return nil, fmt.Errorf("linux.namespaces: joining %s at %s: %w", ns.Type, ns.Path, ErrUnsupported)
		}
		want[ns.Type] = true
	}
	for _, t := range []specs.LinuxNamespaceType{specs.UserNamespace, specs.PIDNamespace, specs.IPCNamespace,
		specs.UTSNamespace, specs.MountNamespace, specs.CgroupNamespace} {
		if !want[t] {
			return nil, fmt.Errorf("linux.namespaces: bwrap always unshares the %s namespace, and the spec shares it: %w", t, ErrUnsupported)
		}
	}
	a = append(a, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup")
	if want[specs.NetworkNamespace] {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--disable-userns",
		"--uid", strconv.FormatUint(uint64(p.User.UID), 10), "--gid", strconv.FormatUint(uint64(p.User.GID), 10))
	if s.Hostname != "" {
		a = append(a, "--hostname", s.Hostname)
	}
	if caps := p.Capabilities; caps != nil && (len(caps.Bounding)+len(caps.Effective)+len(caps.Permitted)+len(caps.Ambient)+len(caps.Inheritable)) > 0 {
		return nil, fmt.Errorf("process.capabilities: %w: golem-box runs bwrap with none", ErrUnsupported)
	}

	// The root: golem-box's empty root (bwrap's tmpfs, made read-only at
	// the end) with its links, or, for image "none", the sandbox's root.
	if b.RootfsLink != "" {
		a = append(a, bindFlag(s.Root.Readonly), b.RootfsLink, "/")
	}
	links := make([]string, 0, len(b.Symlinks))
	for n := range b.Symlinks {
		links = append(links, n)
	}
	slices.Sort(links)
	for _, n := range links {
		a = append(a, "--symlink", b.Symlinks[n], "/"+n)
	}

	for i, m := range s.Mounts {
		switch {
		case m.Type == "bind" || slices.Contains(m.Options, "bind") || slices.Contains(m.Options, "rbind"):
			ro := slices.Contains(m.Options, "ro") || slices.Contains(m.Options, "rro")
			a = append(a, bindFlag(ro), m.Source, m.Destination)
		case m.Type == "proc":
			a = append(a, "--proc", m.Destination)
		case m.Type == "tmpfs" && m.Destination == "/dev":
			a = append(a, "--dev", "/dev") // null, zero, full, random, urandom, tty, pts, shm
		case m.Type == "devpts" && m.Destination == "/dev/pts", m.Type == "tmpfs" && m.Destination == "/dev/shm":
			// part of --dev
		case m.Type == "mqueue":
			a = append(a, "--mqueue", m.Destination)
		case m.Type == "sysfs":
			// no /sys: see the package documentation
		case m.Type == "tmpfs":
			size := ""
			for _, o := range m.Options {
				if v, ok := strings.CutPrefix(o, "size="); ok {
					size = v
				}
			}
			if size != "" {
				a = append(a, "--size", size)
			}
			a = append(a, "--perms", "1777", "--tmpfs", m.Destination)
		default:
			return nil, fmt.Errorf("mounts[%d]: a %s mount at %s: %w", i, m.Type, m.Destination, ErrUnsupported)
		}
	}
	for _, mp := range s.Linux.MaskedPaths {
		if !strings.HasPrefix(mp, "/proc/") {
			continue // no /sys
		}
		switch exists, isDir := kind(mp); {
		case !exists:
		case isDir:
			a = append(a, "--perms", "0555", "--tmpfs", mp, "--remount-ro", mp)
		default:
			a = append(a, "--ro-bind", "/dev/null", mp)
		}
	}
	for _, rp := range s.Linux.ReadonlyPaths {
		if !strings.HasPrefix(rp, "/proc/") {
			continue
		}
		// --remount-ro needs a mount point: bind the path onto itself
		// read-only. The source is the host's /proc, whose entries under
		// these paths are the same kernel-wide (or per-reader) files.
		if exists, _ := kind(rp); exists {
			a = append(a, "--ro-bind", rp, rp)
		}
	}
	if b.RootfsLink == "" && s.Root.Readonly {
		a = append(a, "--remount-ro", "/")
	}

	a = append(a, "--chdir", p.Cwd, "--clearenv")
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	if s.Linux.Seccomp != nil {
		a = append(a, "--seccomp", strconv.Itoa(fds.Seccomp))
	}
	a = append(a, "--json-status-fd", strconv.Itoa(fds.Status), "--")
	return append(a, p.Args...), nil
}

func bindFlag(ro bool) string {
	if ro {
		return "--ro-bind"
	}
	return "--bind"
}

// Limitations are what the package documentation lists, for run --explain.
func (b *Backend) Limitations() []string {
	return []string{"no /sys: bubblewrap cannot mount a private one, and the host's would show its devices and interfaces"}
}
