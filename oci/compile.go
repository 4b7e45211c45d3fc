package oci

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/golem-box/golem-box/mountspec"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Images Compile knows without a cache.
const (
	ImageHost = "host"
	ImageNone = "none"
)

// Defaults for limits the configuration leaves at zero.
const (
	DefaultMemory  = 1 << 30
	DefaultPIDs    = 512
	DefaultTmpSize = 128 << 20
	DefaultNoFile  = 4096
	Hostname       = "golem-box"
	DefaultPath    = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// SpecVersion is the runtime-spec version the compiled specs declare. Every
// field Compile sets exists in 1.0.2, and older runtimes (crun 1.8 in
// Debian 12) refuse newer version strings.
const SpecVersion = "1.0.2-dev"

// ErrUnsupported is a rule of the sandbox that the spec cannot express or
// this runtime cannot enforce: golem-box refuses rather than drop it.
var ErrUnsupported = errors.New("cannot be enforced")

// Features are what the runtime says it supports (`runc features`).
type Features struct {
	// RecursiveReadOnly is the "rro" mount option (runc >= 1.1, kernel >= 5.12).
	RecursiveReadOnly bool `json:"recursive_read_only"`
	// Runtime names the runtime and version, for error messages.
	Runtime string `json:"runtime,omitempty"`
}

// HostImage is the operating-system layer: what the image "host" takes
// from the host, or the top level of an image from the cache.
type HostImage struct {
	// Dirs are bound read-only at the same path: /usr, /bin, ...
	Dirs []string
	// Etc are host files and directories bound read-only into /etc.
	Etc []string
	// Binds map a target to a source outside the host's own tree (the
	// entries of a cached image), bound read-only.
	Binds map[string]string
	// Links are top-level symbolic links of the image, recreated as such.
	Links map[string]string
	// OwnEtc says the image brings its own /etc.
	OwnEtc bool
}

// imageLayer reads the top level of a cached image's root filesystem.
func imageLayer(rootfs string) (*HostImage, []string, error) {
	des, err := os.ReadDir(rootfs)
	if err != nil {
		return nil, nil, err
	}
	h := &HostImage{Binds: map[string]string{}, Links: map[string]string{}}
	reserved := []string{"proc", "dev", "sys", "tmp"}
	for _, de := range des {
		n := de.Name()
		if slices.Contains(reserved, n) {
			continue
		}
		reserved = append(reserved, n)
		switch {
		case de.Type()&os.ModeSymlink != 0:
			l, err := os.Readlink(filepath.Join(rootfs, n))
			if err != nil {
				return nil, nil, err
			}
			h.Links[n] = l
		case n == "etc":
			h.OwnEtc = true
			h.Binds["/etc"] = filepath.Join(rootfs, n)
		case de.IsDir() || de.Type().IsRegular():
			h.Binds["/"+n] = filepath.Join(rootfs, n)
		}
	}
	if !slices.Contains(reserved, "etc") {
		reserved = append(reserved, "etc") // golem-box's own /etc goes there
	}
	return h, reserved, nil
}

// DetectHost lists the host's OS directories and /etc entries that exist.
func DetectHost() *HostImage {
	h := &HostImage{}
	for _, d := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			h.Dirs = append(h.Dirs, d)
		}
	}
	for _, e := range []string{"/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/ssl"} {
		if _, err := os.Stat(e); err == nil {
			h.Etc = append(h.Etc, e)
		}
	}
	return h
}

// Options are the run-time inputs of Compile.
type Options struct {
	Args    []string
	Env     []string // extra KEY=VALUE, after the minimal environment
	Workdir string   // virtual; default "/"
	UID     uint32
	GID     uint32
	// Terminal gives the process a terminal.
	Terminal bool
	// Image overrides the sandbox's image.
	Image string
	// ImageRootfs is the root filesystem of an image from the cache
	// (package images), resolved by the caller; required for any image
	// other than "host" and "none".
	ImageRootfs string
	// BundleDir is the absolute path of the run's bundle; the root
	// filesystem and /etc that golem-box writes live in it.
	BundleDir string
	// ID names the container (cgroups path).
	ID       string
	Features Features
	// Host is the host image; nil detects it.
	Host *HostImage
}

// Bundle is a compiled sandbox: the spec and what must be written beside it.
type Bundle struct {
	Spec *specs.Spec
	// Symlinks are created in the root filesystem: name → target.
	Symlinks map[string]string
	// EtcFiles are written into the bundle's etc directory: name → content;
	// a name ending in "/" is an empty directory (a mount point).
	EtcFiles map[string]string
	// Hidden lists root entries that an OS path hides.
	Hidden []string
	// RootfsLink, for image "none", makes the bundle's rootfs a link to
	// the sandbox's root, which is then the whole root filesystem.
	RootfsLink string
}

var osNames = []string{"bin", "sbin", "usr", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "sys", "tmp"}

// HiddenByImage lists the top-level entries of the sandbox's root that the
// image "host" hides behind its own /usr, /etc, /proc, /tmp and the rest:
// a container does not see them (the file tools do). `golem-box check`
// reports them.
func HiddenByImage(sb *mountspec.Sandbox) []string {
	image := sb.Image
	if sb.Root == "" || (image != "" && image != ImageHost) {
		return nil
	}
	var out []string
	for _, n := range osNames {
		if _, err := os.Lstat(filepath.Join(sb.Root, n)); err == nil {
			out = append(out, "/"+n)
		}
	}
	slices.Sort(out)
	return out
}

// Compile turns a validated sandbox into a bundle for an OCI runtime.
func Compile(ctx context.Context, sb *mountspec.Sandbox, o Options) (*Bundle, error) {
	if len(o.Args) == 0 {
		return nil, errors.New("no command to run")
	}
	if !filepath.IsAbs(o.BundleDir) {
		return nil, fmt.Errorf("bundle directory %q must be absolute", o.BundleDir)
	}
	image := o.Image
	if image == "" {
		image = sb.Image
	}
	if image == "" {
		image = ImageHost
	}
	if image != ImageHost && image != ImageNone && o.ImageRootfs == "" {
		return nil, fmt.Errorf("image %q: not resolved to a root filesystem (golem-box image ls lists the images there are)", image)
	}
	if len(sb.Network.Allow) > 0 {
		return nil, fmt.Errorf("network.allow: %w: a domain allow-list needs a filtering proxy, which golem-box does not have yet; use network: false or true", ErrUnsupported)
	}
	layer := &osLayer{whole: image == ImageNone, host: o.Host, reserved: osNames}
	switch {
	case o.ImageRootfs != "":
		var err error
		if layer.host, layer.reserved, err = imageLayer(o.ImageRootfs); err != nil {
			return nil, fmt.Errorf("image %q: %w", image, err)
		}
	case layer.host == nil && !layer.whole:
		layer.host = DetectHost()
	}
	b := &Bundle{Spec: &specs.Spec{Version: SpecVersion}, Symlinks: map[string]string{}, EtcFiles: map[string]string{}}
	err := Compose(
		withRoot(layer, sb, b),
		withProcess(o),
		WithHostname(Hostname),
		WithNamespaces(sb.Network.Enabled, o.UID, o.GID),
		WithKernelMounts(),
		withOSLayer(layer, sb, o, b),
		withUserMounts(layer, sb, o.Features, b),
		WithMaskedPaths(),
		WithResources(sb.Limits, o.ID),
		WithSeccomp(),
	)(ctx, b.Spec)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// osLayer is where the container's operating system comes from: either the
// sandbox's root is the whole root filesystem (image "none"), or golem-box's
// empty root filesystem gets an OS layer bound into it (the host's, or a
// cached image's) and the root's entries beside it.
type osLayer struct {
	whole    bool       // image "none"
	host     *HostImage // the OS layer, when not whole
	reserved []string   // top-level names the OS layer (and the kernel mounts) own
}

func withRoot(layer *osLayer, sb *mountspec.Sandbox, b *Bundle) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		s.Root = &specs.Root{Path: "rootfs", Readonly: true}
		if !layer.whole {
			return nil
		}
		if sb.Root == "" {
			return errors.New(`image "none" uses sandbox.root as the whole root filesystem: set root`)
		}
		// The runtime would create missing mount points in the user's root.
		for _, d := range []string{"proc", "dev", "sys", "tmp"} {
			if fi, err := os.Lstat(filepath.Join(sb.Root, d)); err != nil || !fi.IsDir() {
				return fmt.Errorf(`image "none": the root %s has no directory /%s; create it (mkdir %s) or use image "host"`, sb.Root, d, filepath.Join(sb.Root, d))
			}
		}
		b.RootfsLink = sb.Root
		return nil
	}
}

func withProcess(o Options) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		p := ensureProcess(s)
		wd := o.Workdir
		if wd == "" {
			wd = "/"
		}
		clean, err := mountspec.CleanVirtual(wd)
		if err != nil || !strings.HasPrefix(wd, "/") {
			return fmt.Errorf("workdir %q: must be an absolute path inside the sandbox", wd)
		}
		if clean == "/proc" || strings.HasPrefix(clean, "/proc/") {
			return fmt.Errorf("workdir %q: a working directory under /proc is refused (CVE-2024-21626)", wd)
		}
		env := []string{"PATH=" + DefaultPath, "HOME=/tmp"}
		if o.Terminal {
			env = append(env, "TERM=xterm")
		}
		for _, kv := range o.Env {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" || strings.ContainsAny(kv, "\x00") {
				return fmt.Errorf("--env %q: write KEY=VALUE", kv)
			}
			env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
			env = append(env, kv)
		}
		*p = specs.Process{
			Terminal:        o.Terminal,
			User:            specs.User{UID: o.UID, GID: o.GID},
			Args:            o.Args,
			Env:             env,
			Cwd:             clean,
			Capabilities:    &specs.LinuxCapabilities{Bounding: []string{}, Effective: []string{}, Permitted: []string{}},
			Rlimits:         []specs.POSIXRlimit{{Type: "RLIMIT_NOFILE", Hard: DefaultNoFile, Soft: DefaultNoFile}},
			NoNewPrivileges: true,
		}
		return nil
	}
}

// WithHostname sets the hostname (the UTS namespace is private).
func WithHostname(h string) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		s.Hostname = h
		return nil
	}
}

// WithNamespaces unshares every namespace; the network one only when the
// network is off, which leaves it empty but for lo. The user namespace maps
// the invoking uid and gid to themselves, so that files written belong to
// the invoking user and capabilities mean nothing outside.
func WithNamespaces(network bool, uid, gid uint32) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		l := ensureLinux(s)
		for _, t := range []specs.LinuxNamespaceType{specs.PIDNamespace, specs.IPCNamespace, specs.UTSNamespace,
			specs.MountNamespace, specs.CgroupNamespace, specs.UserNamespace} {
			l.Namespaces = append(l.Namespaces, specs.LinuxNamespace{Type: t})
		}
		if !network {
			l.Namespaces = append(l.Namespaces, specs.LinuxNamespace{Type: specs.NetworkNamespace})
		}
		l.UIDMappings = []specs.LinuxIDMapping{{ContainerID: uid, HostID: uid, Size: 1}}
		l.GIDMappings = []specs.LinuxIDMapping{{ContainerID: gid, HostID: gid, Size: 1}}
		l.RootfsPropagation = "private" // the schema knows no "rprivate"; every bind is rprivate itself
		return nil
	}
}

// WithKernelMounts mounts /proc, /dev, /dev/pts, /dev/shm, /dev/mqueue and a
// read-only /sys as Docker does, and /tmp as a size-limited tmpfs.
//
// devpts gets no gid=5 (Docker's tty group): the user namespace maps only
// the invoking group, and an unmapped gid makes the mount fail.
func WithKernelMounts() SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		pts := []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}
		s.Mounts = append(s.Mounts,
			specs.Mount{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
			specs.Mount{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
			specs.Mount{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: pts},
			specs.Mount{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
			specs.Mount{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
			specs.Mount{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
			specs.Mount{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "nodev", "mode=1777", "size=" + strconv.Itoa(DefaultTmpSize)}},
		)
		return nil
	}
}

// WithMaskedPaths applies Docker's current masked and read-only paths.
func WithMaskedPaths() SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		l := ensureLinux(s)
		l.MaskedPaths = []string{"/proc/asound", "/proc/acpi", "/proc/interrupts", "/proc/kcore", "/proc/keys",
			"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
			"/sys/firmware", "/sys/devices/virtual/powercap"}
		l.ReadonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
		return nil
	}
}

// WithResources sets memory, pids and CPU limits (defaults where unset) and
// allows only the standard devices.
func WithResources(l mountspec.Limits, id string) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		r := ensureResources(s)
		mem := int64(l.Memory)
		if mem == 0 {
			mem = DefaultMemory
		}
		pids := l.PIDs
		if pids == 0 {
			pids = DefaultPIDs
		}
		r.Memory = &specs.LinuxMemory{Limit: &mem}
		r.Pids = &specs.LinuxPids{Limit: &pids}
		if l.CPUs > 0 {
			period := uint64(100000)
			quota := int64(l.CPUs * float64(period))
			r.CPU = &specs.LinuxCPU{Quota: &quota, Period: &period}
		}
		c := func(major int64, minor int64) specs.LinuxDeviceCgroup {
			mi := &minor
			if minor < 0 {
				mi = nil
			}
			return specs.LinuxDeviceCgroup{Allow: true, Type: "c", Major: &major, Minor: mi, Access: "rwm"}
		}
		r.Devices = []specs.LinuxDeviceCgroup{{Allow: false, Access: "rwm"},
			c(1, 3), c(1, 5), c(1, 7), c(1, 8), c(1, 9), c(5, 0), c(5, 1), c(5, 2), c(136, -1)}
		if id != "" {
			ensureLinux(s).CgroupsPath = "/golem-box/" + id
		}
		return nil
	}
}

// deniedSyscalls are allowed by containerd's profile on kernels >= 4.8 but
// not by golem-box: inside a sandbox for untrusted content, one process
// reading or steering another (even its own sibling) is not needed, and
// without Yama nothing else stops it.
var deniedSyscalls = []string{"ptrace", "process_vm_readv", "process_vm_writev"}

// WithSeccomp applies containerd's default profile for the spec's
// capabilities (none), which blocks mount, unshare, keyctl and the rest of
// Docker's list, then removes deniedSyscalls from its allow rules.
func WithSeccomp() SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		p := seccomp.DefaultProfile(s)
		for i := range p.Syscalls {
			if p.Syscalls[i].Action == specs.ActAllow {
				p.Syscalls[i].Names = slices.DeleteFunc(p.Syscalls[i].Names, func(n string) bool { return slices.Contains(deniedSyscalls, n) })
			}
		}
		p.Syscalls = slices.DeleteFunc(p.Syscalls, func(r specs.LinuxSyscall) bool { return len(r.Names) == 0 })
		ensureLinux(s).Seccomp = p
		return nil
	}
}

// bindOpts are the options of a bind mount: recursive, private, no setuid
// or devices, and read-only recursively when asked (or refused).
func bindOpts(source string, ro bool, f Features) ([]string, error) {
	opts := []string{"rbind", "nosuid", "nodev", "rprivate"}
	if !ro {
		return opts, nil
	}
	if f.RecursiveReadOnly {
		return append(opts, "rro"), nil
	}
	subs, err := submounts(source)
	if err != nil {
		return nil, err
	}
	if len(subs) > 0 {
		rt := f.Runtime
		if rt == "" {
			rt = "this runtime"
		}
		return nil, fmt.Errorf("read-only mount of %s: %w: %s has no recursive read-only (rro) mounts and %s has submounts (%s) that plain ro would leave writable; use runc >= 1.1 or crun >= 1.9 with kernel >= 5.12",
			source, ErrUnsupported, rt, source, strings.Join(subs, ", "))
	}
	return append(opts, "ro"), nil
}

func withOSLayer(layer *osLayer, sb *mountspec.Sandbox, o Options, b *Bundle) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		if layer.whole {
			return nil
		}
		for _, d := range layer.host.Dirs {
			opts, err := bindOpts(d, true, o.Features)
			if err != nil {
				return err
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: d, Type: "bind", Source: d, Options: opts})
		}
		targets := make([]string, 0, len(layer.host.Binds))
		for t := range layer.host.Binds {
			targets = append(targets, t)
		}
		slices.Sort(targets)
		for _, t := range targets {
			opts, err := bindOpts(layer.host.Binds[t], true, o.Features)
			if err != nil {
				return err
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: t, Type: "bind", Source: layer.host.Binds[t], Options: opts})
		}
		for n, l := range layer.host.Links {
			b.Symlinks[n] = l
		}
		if layer.host.OwnEtc {
			return nil
		}
		etc := path.Join(o.BundleDir, "etc")
		opts, err := bindOpts(etc, true, o.Features)
		if err != nil {
			return err
		}
		s.Mounts = append(s.Mounts, specs.Mount{Destination: "/etc", Type: "bind", Source: etc, Options: opts})
		name := "golem"
		passwd := "root:x:0:0:root:/root:/bin/sh\n"
		group := "root:x:0:\n"
		if o.UID != 0 {
			passwd += fmt.Sprintf("%s:x:%d:%d:golem-box:/tmp:/bin/sh\n", name, o.UID, o.GID)
		}
		if o.GID != 0 {
			group += fmt.Sprintf("%s:x:%d:\n", name, o.GID)
		}
		b.EtcFiles["passwd"] = passwd
		b.EtcFiles["group"] = group
		b.EtcFiles["hosts"] = "127.0.0.1\tlocalhost " + Hostname + "\n::1\tlocalhost ip6-localhost ip6-loopback\n"
		b.EtcFiles["nsswitch.conf"] = "passwd: files\ngroup: files\nhosts: files dns\n"
		b.EtcFiles["resolv.conf"] = ""
		etcBinds := slices.Clone(layer.host.Etc)
		if sb.Network.Enabled {
			etcBinds = append(etcBinds, "/etc/resolv.conf")
		}
		for _, e := range etcBinds {
			fi, err := os.Stat(e)
			if err != nil {
				continue
			}
			mp := path.Base(e)
			if fi.IsDir() {
				b.EtcFiles[mp+"/"] = ""
			} else {
				b.EtcFiles[mp] = ""
			}
			opts, err := bindOpts(e, true, o.Features)
			if err != nil {
				return err
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: e, Type: "bind", Source: e, Options: opts})
		}
		return nil
	}
}

// withUserMounts binds the root's top-level entries and the mounts at
// their virtual paths, parents before children.
func withUserMounts(layer *osLayer, sb *mountspec.Sandbox, f Features, b *Bundle) SpecOpt {
	return func(_ context.Context, s *specs.Spec) error {
		type bind struct {
			target, source string
			ro             bool
		}
		var binds []bind
		taken := map[string]bool{}
		for _, m := range sb.Mounts {
			taken[m.Target] = true
		}
		if !layer.whole && sb.Root != "" {
			des, err := os.ReadDir(sb.Root)
			if err != nil {
				return fmt.Errorf("sandbox.root: %w", err)
			}
			for _, de := range des {
				name, target := de.Name(), "/"+de.Name()
				switch {
				case slices.Contains(layer.reserved, name):
					b.Hidden = append(b.Hidden, target)
				case taken[target]:
					// a mount shadows it (mountspec reports that)
				case de.Type()&os.ModeSymlink != 0:
					link, err := os.Readlink(filepath.Join(sb.Root, name))
					if err != nil {
						return fmt.Errorf("sandbox.root: %w", err)
					}
					b.Symlinks[name] = link
				case de.IsDir() || de.Type().IsRegular():
					binds = append(binds, bind{target, filepath.Join(sb.Root, name), sb.ReadOnly})
				default:
					b.Hidden = append(b.Hidden, target) // sockets, FIFOs, devices are not bound
				}
			}
		}
		for _, m := range sb.Mounts {
			if err := checkMountPoint(layer, sb, m, b); err != nil {
				return err
			}
			binds = append(binds, bind{m.Target, m.Source, m.ReadOnly})
		}
		slices.SortFunc(binds, func(a, c bind) int { return strings.Compare(a.target, c.target) })
		for _, bd := range binds {
			opts, err := bindOpts(bd.source, bd.ro, f)
			if err != nil {
				return err
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: bd.target, Type: "bind", Source: bd.source, Options: opts})
		}
		return nil
	}
}

// checkMountPoint refuses a mount whose mount point the runtime would have
// to create in a user directory, or under the OS of the image.
func checkMountPoint(layer *osLayer, sb *mountspec.Sandbox, m mountspec.Mount, b *Bundle) error {
	first, _, nested := strings.Cut(m.Target[1:], "/")
	if !layer.whole && slices.Contains(layer.reserved, first) && first != "tmp" {
		return fmt.Errorf("mount %s: /%s belongs to the image; mount somewhere else (such as /mnt/... or /%s-data)", m.Target, first, first)
	}
	if !layer.whole && !nested {
		return nil // a top-level mount point lives in golem-box's root filesystem
	}
	lower := *sb
	lower.Mounts = slices.DeleteFunc(slices.Clone(sb.Mounts), func(x mountspec.Mount) bool { return x.Target == m.Target })
	r, err := lower.Resolve(m.Target)
	if err != nil {
		return nil // not under any mount: golem-box's root filesystem
	}
	if r.Target == "/" && !layer.whole {
		if _, ok := b.Symlinks[first]; ok {
			return fmt.Errorf("mount %s: /%s is a symbolic link in the root; mount at the path it points to", m.Target, first)
		}
		if fi, err := os.Lstat(filepath.Join(sb.Root, first)); err != nil || !fi.IsDir() {
			return nil // no such root entry: the mount point is in golem-box's root filesystem
		}
	}
	fi, err := os.Lstat(r.Host)
	switch {
	case err != nil:
		return fmt.Errorf("mount %s: its mount point %s does not exist; create it (mkdir %s) so that golem-box never creates directories in your files", m.Target, r.Host, r.Host)
	case !fi.IsDir():
		return fmt.Errorf("mount %s: its mount point %s is not a directory", m.Target, r.Host)
	}
	return nil
}

// submounts lists the mount points strictly below dir, from mountinfo.
func submounts(dir string) ([]string, error) {
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		canon = dir
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("cannot read /proc/self/mountinfo to check for submounts: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMountinfo(f[4])
		if strings.HasPrefix(mp, strings.TrimSuffix(canon, "/")+"/") {
			out = append(out, mp)
		}
	}
	return out, nil
}

// unescapeMountinfo undoes the octal escapes (\040 for space) of mountinfo.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
