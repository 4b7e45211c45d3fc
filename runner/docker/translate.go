package docker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Labels golem-box puts on what it makes in an engine.
const (
	LabelRun   = "io.golem-box.run"   // the run's id
	LabelOwner = "io.golem-box.owner" // pid and start time of the golem-box process
)

// kernelMounts are the spec's mounts the engine makes itself, the same way
// (its /proc, /dev, /dev/pts, /dev/shm, /dev/mqueue and a read-only /sys
// for an unprivileged container).
var kernelMounts = map[string]string{
	"/proc": "proc", "/dev": "tmpfs", "/dev/pts": "devpts", "/dev/shm": "tmpfs",
	"/dev/mqueue": "mqueue", "/sys": "sysfs",
}

// engineFeatures are what the engine can say that the spec needs.
type engineFeatures struct {
	// RecursiveReadOnly: BindOptions.ReadOnlyForceRecursive (API >= 1.44).
	RecursiveReadOnly bool
}

// translate turns a compiled spec into the engine's container
// configuration. Every field of the spec that golem-box sets is either
// carried over or known to be the engine's own default; anything else is an
// error, so that a rule is never dropped on the way.
func translate(s *specs.Spec, image string, labels map[string]string, f engineFeatures) (*container.Config, *container.HostConfig, error) {
	if s.Process == nil || s.Linux == nil || s.Root == nil {
		return nil, nil, fmt.Errorf("docker: incomplete spec (process, linux and root are required)")
	}
	p := s.Process
	if p.Terminal {
		return nil, nil, fmt.Errorf("docker: --tty is not supported yet: output is captured")
	}
	if p.Capabilities != nil && len(p.Capabilities.Bounding)+len(p.Capabilities.Effective)+len(p.Capabilities.Permitted)+
		len(p.Capabilities.Inheritable)+len(p.Capabilities.Ambient) > 0 {
		return nil, nil, fmt.Errorf("docker: the spec grants capabilities; golem-box drops them all")
	}
	cfg := &container.Config{
		Image:      image,
		Cmd:        p.Args,
		Entrypoint: []string{},
		Env:        p.Env,
		WorkingDir: p.Cwd,
		User:       strconv.FormatUint(uint64(p.User.UID), 10) + ":" + strconv.FormatUint(uint64(p.User.GID), 10),
		Hostname:   s.Hostname,
		Labels:     labels,
	}
	if len(p.User.AdditionalGids) > 0 {
		return nil, nil, fmt.Errorf("docker: additional groups are not translated")
	}
	hc := &container.HostConfig{
		NetworkMode:    "none",
		IpcMode:        "private",
		PidMode:        "",
		UTSMode:        "",
		CgroupnsMode:   "private",
		CapDrop:        []string{"ALL"},
		ReadonlyRootfs: s.Root.Readonly,
		LogConfig:      container.LogConfig{Type: "none"},
		MaskedPaths:    s.Linux.MaskedPaths,
		ReadonlyPaths:  s.Linux.ReadonlyPaths,
		Tmpfs:          map[string]string{},
	}
	if p.NoNewPrivileges {
		hc.SecurityOpt = append(hc.SecurityOpt, "no-new-privileges")
	}
	if s.Linux.Seccomp != nil {
		profile, err := json.Marshal(s.Linux.Seccomp)
		if err != nil {
			return nil, nil, err
		}
		hc.SecurityOpt = append(hc.SecurityOpt, "seccomp="+string(profile))
	} else {
		return nil, nil, fmt.Errorf("docker: the spec has no seccomp profile; golem-box always sets one")
	}
	if err := namespaces(s.Linux.Namespaces, cfg, hc); err != nil {
		return nil, nil, err
	}
	for _, rl := range p.Rlimits {
		name, ok := strings.CutPrefix(rl.Type, "RLIMIT_")
		if !ok {
			return nil, nil, fmt.Errorf("docker: rlimit %q: unknown", rl.Type)
		}
		hc.Ulimits = append(hc.Ulimits, &container.Ulimit{Name: strings.ToLower(name), Soft: int64(rl.Soft), Hard: int64(rl.Hard)})
	}
	if err := resources(s.Linux.Resources, hc); err != nil {
		return nil, nil, err
	}
	for _, m := range s.Mounts {
		if err := addMount(m, hc, f); err != nil {
			return nil, nil, err
		}
	}
	return cfg, hc, nil
}

// namespaces: the engine unshares pid, ipc, uts, mount and (with
// CgroupnsMode private) cgroup by default; the network namespace is "none"
// when the spec has its own, the engine's default network otherwise. The
// user namespace is the one thing it does not give a single container.
//
// Without network, the container is also NetworkDisabled: the engine then
// skips its network sandbox (libnetwork's namespace, /etc/hosts and
// resolver set-up, about 100 ms of every start on Debian's engine) and
// the runtime makes the container a fresh network namespace of its own,
// with only lo. The conformance suite checks both: only lo, and a
// listener on the host's 127.0.0.1 unreachable.
func namespaces(nss []specs.LinuxNamespace, cfg *container.Config, hc *container.HostConfig) error {
	net := false
	for _, ns := range nss {
		if ns.Path != "" {
			return fmt.Errorf("docker: joining the %s namespace at %s is not translated", ns.Type, ns.Path)
		}
		switch ns.Type {
		case specs.NetworkNamespace:
			net = true
		case specs.PIDNamespace, specs.IPCNamespace, specs.UTSNamespace, specs.MountNamespace, specs.CgroupNamespace, specs.UserNamespace:
		default:
			return fmt.Errorf("docker: namespace %q is not translated", ns.Type)
		}
	}
	if !net {
		hc.NetworkMode = "default"
	}
	cfg.NetworkDisabled = net
	return nil
}

func resources(r *specs.LinuxResources, hc *container.HostConfig) error {
	if r == nil {
		return nil
	}
	if r.Memory != nil && r.Memory.Limit != nil {
		hc.Memory = *r.Memory.Limit
		hc.MemorySwap = *r.Memory.Limit // no swap beyond the limit
	}
	if r.Pids != nil && r.Pids.Limit != nil {
		limit := *r.Pids.Limit
		hc.PidsLimit = &limit
	}
	if r.CPU != nil && r.CPU.Quota != nil && r.CPU.Period != nil && *r.CPU.Period > 0 {
		hc.NanoCPUs = *r.CPU.Quota * 1_000_000_000 / int64(*r.CPU.Period)
	}
	// The engine's default device rules: the standard character devices
	// golem-box allows, plus mknod of any, which needs CAP_MKNOD. Any
	// allow rule beyond them would be a grant the translation drops.
	std := map[string]bool{"1:3": true, "1:5": true, "1:7": true, "1:8": true, "1:9": true, "5:0": true, "5:1": true, "5:2": true, "136:*": true}
	for _, d := range r.Devices {
		if !d.Allow {
			continue
		}
		key := "*:*"
		if d.Major != nil {
			key = strconv.FormatInt(*d.Major, 10) + ":*"
			if d.Minor != nil {
				key = strconv.FormatInt(*d.Major, 10) + ":" + strconv.FormatInt(*d.Minor, 10)
			}
		}
		if !std[key] {
			return fmt.Errorf("docker: device rule %s %s is not translated", d.Type, key)
		}
	}
	return nil
}

func addMount(m specs.Mount, hc *container.HostConfig, f engineFeatures) error {
	if t, ok := kernelMounts[m.Destination]; ok && m.Type == t {
		return nil
	}
	switch m.Type {
	case "tmpfs":
		hc.Tmpfs[m.Destination] = strings.Join(m.Options, ",")
		return nil
	case "bind":
	default:
		return fmt.Errorf("docker: mount %s of type %q is not translated", m.Destination, m.Type)
	}
	bm := mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Destination,
		BindOptions: &mount.BindOptions{Propagation: mount.PropagationRPrivate}}
	for _, o := range m.Options {
		switch o {
		case "rbind", "rprivate":
		case "nosuid", "nodev":
			// The engine has no such bind option. Without capabilities
			// and with no-new-privileges, setuid bits do nothing and
			// device nodes cannot be made; the device rules refuse the
			// rest.
		case "ro":
			bm.ReadOnly = true
			if f.RecursiveReadOnly {
				// Engines >= 25 make ro binds recursive by default;
				// plain "ro" from Compile means the source has no
				// submounts, so non-recursive is exact.
				bm.BindOptions.ReadOnlyNonRecursive = true
			}
		case "rro":
			if !f.RecursiveReadOnly {
				return fmt.Errorf("docker: mount %s: recursive read-only needs engine API 1.44", m.Destination)
			}
			bm.ReadOnly = true
			bm.BindOptions.ReadOnlyForceRecursive = true
		default:
			return fmt.Errorf("docker: mount %s: option %q is not translated", m.Destination, o)
		}
	}
	if slices.ContainsFunc(hc.Mounts, func(x mount.Mount) bool { return x.Target == bm.Target }) {
		return fmt.Errorf("docker: two mounts at %s", bm.Target)
	}
	hc.Mounts = append(hc.Mounts, bm)
	return nil
}
