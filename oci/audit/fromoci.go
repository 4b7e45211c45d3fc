package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// fromOCI reads an OCI runtime config.json.
func fromOCI(target string, raw json.RawMessage) (*Subject, error) {
	var sp specs.Spec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, typeError(target, err)
	}
	s := &Subject{Target: target, Format: FormatOCI, Namespaces: map[string]Namespace{}, Hooks: map[string]int{},
		Fields: map[string]string{
			fieldCaps: "process.capabilities", fieldUser: "process.user.uid", fieldUIDMap: "linux.uidMappings",
			fieldMasked: "linux.maskedPaths", fieldReadonly: "linux.readonlyPaths", fieldSeccomp: "linux.seccomp",
			fieldAppArmor: "process.apparmorProfile", fieldSELinux: "process.selinuxLabel", fieldNNP: "process.noNewPrivileges",
			fieldRootfs: "root.readonly", fieldMemory: "linux.resources.memory.limit", fieldSwap: "linux.resources.memory.swap",
			fieldPids: "linux.resources.pids.limit", fieldCPU: "linux.resources.cpu", fieldOOMScore: "process.oomScoreAdj",
			fieldOOMKill: "linux.resources.memory.disableOOMKiller", fieldDeviceRules: "linux.resources.devices",
			fieldSysctl: "linux.sysctl", fieldCwd: "process.cwd", fieldHooks: "hooks", fieldEnv: "process.env",
			fieldPropagation: "linux.rootfsPropagation",
		}}
	s.Seccomp.Mode = SeccompNone
	if p := sp.Process; p != nil {
		s.UID, s.UIDKnown = p.User.UID, true
		s.Cwd = p.Cwd
		s.Env = p.Env
		s.NoNewPrivileges = p.NoNewPrivileges
		s.AppArmor = p.ApparmorProfile
		s.SELinuxLabel = p.SelinuxLabel
		if p.OOMScoreAdj != nil {
			s.OOMScoreAdj = *p.OOMScoreAdj
		}
		if c := p.Capabilities; c != nil {
			s.Caps = Caps{Bounding: capNames(c.Bounding), Effective: capNames(c.Effective), Permitted: capNames(c.Permitted),
				Ambient: capNames(c.Ambient), Inheritable: capNames(c.Inheritable)}
		}
	}
	if sp.Root != nil {
		s.ReadonlyRootfs = sp.Root.Readonly
	}
	for i, m := range sp.Mounts {
		mt := Mount{Type: m.Type, Source: m.Source, Destination: m.Destination, Field: fmt.Sprintf("mounts[%d]", i)}
		for _, o := range m.Options {
			switch o {
			case "bind", "rbind":
				mt.Type = "bind"
			case "ro":
				mt.ReadOnly = true
			case "rro":
				mt.ReadOnly, mt.Recursive = true, true
			case "shared", "rshared", "slave", "rslave", "private", "rprivate", "unbindable", "runbindable":
				mt.Propagation = o
			}
		}
		s.Mounts = append(s.Mounts, mt)
	}
	for phase, n := range hookCounts(sp.Hooks) {
		s.Hooks[phase] = n
	}
	l := sp.Linux
	if l == nil {
		l = &specs.Linux{}
		s.Fields[fieldMasked], s.Fields[fieldReadonly] = "linux", "linux"
	}
	for _, t := range []specs.LinuxNamespaceType{specs.NetworkNamespace, specs.PIDNamespace, specs.IPCNamespace,
		specs.UTSNamespace, specs.UserNamespace, specs.CgroupNamespace, specs.MountNamespace} {
		ns := Namespace{Mode: NSHost, Field: "linux.namespaces"}
		for i, n := range l.Namespaces {
			if n.Type != t {
				continue
			}
			ns.Field = fmt.Sprintf("linux.namespaces[%d]", i)
			ns.Mode, ns.Path = NSPrivate, n.Path
			if n.Path != "" {
				ns.Mode = NSJoin
			}
		}
		s.Namespaces[string(t)] = ns
	}
	for _, m := range l.UIDMappings {
		s.UIDMappings = append(s.UIDMappings, IDMap{ContainerID: m.ContainerID, HostID: m.HostID, Size: m.Size})
	}
	s.MaskedPaths, s.ReadonlyPaths = nonNil(l.MaskedPaths), nonNil(l.ReadonlyPaths)
	s.Sysctls = l.Sysctl
	s.RootfsPropagation = l.RootfsPropagation
	if r := l.Resources; r != nil {
		if m := r.Memory; m != nil {
			if m.Limit != nil && *m.Limit > 0 {
				s.MemoryLimit = *m.Limit
			}
			if m.Swap != nil {
				s.SwapLimit = *m.Swap
			}
			s.OOMKillDisable = m.DisableOOMKiller != nil && *m.DisableOOMKiller
		}
		if r.Pids != nil && r.Pids.Limit != nil && *r.Pids.Limit > 0 {
			s.PidsLimit = *r.Pids.Limit
		}
		if c := r.CPU; c != nil {
			s.CPULimited = c.Quota != nil && *c.Quota > 0 || c.Cpus != "" || c.Shares != nil && *c.Shares > 0 && *c.Shares != 1024
		}
		for i, d := range r.Devices {
			rule := DeviceRule{Allow: d.Allow, Type: d.Type, Major: -1, Minor: -1, Access: d.Access, Field: fmt.Sprintf("linux.resources.devices[%d]", i)}
			if rule.Type == "" {
				rule.Type = "a"
			}
			if d.Major != nil {
				rule.Major = *d.Major
			}
			if d.Minor != nil {
				rule.Minor = *d.Minor
			}
			s.DeviceRules = append(s.DeviceRules, rule)
		}
	}
	for i, d := range l.Devices {
		s.Devices = append(s.Devices, Device{Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor, Field: fmt.Sprintf("linux.devices[%d]", i)})
	}
	if sc := l.Seccomp; sc != nil {
		s.Seccomp = Seccomp{Mode: SeccompCustom, DefaultAction: string(sc.DefaultAction)}
		for _, r := range sc.Syscalls {
			if r.Action == specs.ActAllow && len(r.Args) == 0 {
				s.Seccomp.Allowed = append(s.Seccomp.Allowed, r.Names...)
			}
		}
	}
	return s, nil
}

// capNames strips the CAP_ prefix so that both formats compare alike.
func capNames(in []string) []string {
	out := make([]string, 0, len(in))
	for _, c := range in {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	return out
}

func nonNil(p []string) []string {
	if p == nil {
		return []string{}
	}
	return slices.Clone(p)
}

func hookCounts(h *specs.Hooks) map[string]int {
	out := map[string]int{}
	if h == nil {
		return out
	}
	for phase, list := range map[string][]specs.Hook{
		"prestart": h.Prestart, "createRuntime": h.CreateRuntime, "createContainer": h.CreateContainer,
		"startContainer": h.StartContainer, "poststart": h.Poststart, "poststop": h.Poststop,
	} {
		if len(list) > 0 {
			out[phase] = len(list)
		}
	}
	return out
}
