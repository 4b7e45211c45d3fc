package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// dockerInspect holds the fields of docker inspect that the rules read.
// It is declared here rather than taken from the engine's API module so
// that the oci tree stays free of engine code (DESIGN.md) and so that the
// output of any engine version decodes: unknown fields are ignored and
// fields that changed type across versions (CapAdd as a string) are lenient.
type dockerInspect struct {
	ID              string `json:"Id"`
	Name            string `json:"Name"`
	AppArmorProfile string `json:"AppArmorProfile"`
	ProcessLabel    string `json:"ProcessLabel"`
	Config          struct {
		User       string   `json:"User"`
		Env        []string `json:"Env"`
		WorkingDir string   `json:"WorkingDir"`
	} `json:"Config"`
	HostConfig struct {
		NetworkMode       string   `json:"NetworkMode"`
		IpcMode           string   `json:"IpcMode"`
		PidMode           string   `json:"PidMode"`
		UTSMode           string   `json:"UTSMode"`
		UsernsMode        string   `json:"UsernsMode"`
		CgroupnsMode      string   `json:"CgroupnsMode"`
		Privileged        bool     `json:"Privileged"`
		PublishAllPorts   bool     `json:"PublishAllPorts"`
		ReadonlyRootfs    bool     `json:"ReadonlyRootfs"`
		CapAdd            strSlice `json:"CapAdd"`
		CapDrop           strSlice `json:"CapDrop"`
		SecurityOpt       []string `json:"SecurityOpt"`
		Memory            int64    `json:"Memory"`
		MemorySwap        int64    `json:"MemorySwap"`
		NanoCpus          int64    `json:"NanoCpus"`
		CPUQuota          int64    `json:"CpuQuota"`
		CPUShares         int64    `json:"CpuShares"`
		CpusetCpus        string   `json:"CpusetCpus"`
		PidsLimit         *int64   `json:"PidsLimit"`
		OomScoreAdj       int      `json:"OomScoreAdj"`
		OomKillDisable    *bool    `json:"OomKillDisable"`
		DeviceCgroupRules []string `json:"DeviceCgroupRules"`
		Devices           []struct {
			PathOnHost      string `json:"PathOnHost"`
			PathInContainer string `json:"PathInContainer"`
		} `json:"Devices"`
		Sysctls       map[string]string `json:"Sysctls"`
		MaskedPaths   *[]string         `json:"MaskedPaths"`
		ReadonlyPaths *[]string         `json:"ReadonlyPaths"`
		PortBindings  map[string][]struct {
			HostIP   string `json:"HostIp"`
			HostPort string `json:"HostPort"`
		} `json:"PortBindings"`
		RestartPolicy struct {
			Name              string `json:"Name"`
			MaximumRetryCount int    `json:"MaximumRetryCount"`
		} `json:"RestartPolicy"`
		Mounts []struct {
			Target      string `json:"Target"`
			BindOptions *struct {
				ReadOnlyForceRecursive bool `json:"ReadOnlyForceRecursive"`
			} `json:"BindOptions"`
		} `json:"Mounts"`
	} `json:"HostConfig"`
	Mounts []struct {
		Type        string `json:"Type"`
		Source      string `json:"Source"`
		Destination string `json:"Destination"`
		RW          bool   `json:"RW"`
		Propagation string `json:"Propagation"`
	} `json:"Mounts"`
}

// strSlice decodes a JSON array of strings, a single string or null, as
// Docker's own strslice does.
type strSlice []string

func (s *strSlice) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = nil
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = strSlice{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// DockerDefaultCaps is the capability set the Docker Engine grants a
// container unless told otherwise (moby oci/caps/defaults.go).
var DockerDefaultCaps = []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
	"SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"}

// AllCaps are the capabilities Linux defines (up to CHECKPOINT_RESTORE, 6.x).
var AllCaps = []string{"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
	"SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
	"SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
	"MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF",
	"CHECKPOINT_RESTORE"}

// dockerMaskedPaths and dockerReadonlyPaths are the engine's defaults: what
// it applies when the inspect output carries no list, and what GB314 and
// GB315 require of every spec.
var (
	dockerMaskedPaths   = []string{"/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware"}
	dockerReadonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

// fromDocker reads one container of docker inspect output.
func fromDocker(target string, raw json.RawMessage) (*Subject, error) {
	var d dockerInspect
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, typeError(target, err)
	}
	h := &d.HostConfig
	s := &Subject{Target: target, Format: FormatDocker, Name: strings.TrimPrefix(d.Name, "/"), Privileged: h.Privileged,
		Namespaces: map[string]Namespace{}, Hooks: map[string]int{},
		Fields: map[string]string{
			fieldPrivileged: "HostConfig.Privileged", fieldCaps: "HostConfig.CapAdd", fieldUser: "Config.User",
			fieldMasked: "HostConfig.MaskedPaths", fieldReadonly: "HostConfig.ReadonlyPaths", fieldSeccomp: "HostConfig.SecurityOpt",
			fieldAppArmor: "AppArmorProfile", fieldSELinux: "HostConfig.SecurityOpt", fieldNNP: "HostConfig.SecurityOpt",
			fieldRootfs: "HostConfig.ReadonlyRootfs", fieldMemory: "HostConfig.Memory", fieldSwap: "HostConfig.MemorySwap",
			fieldPids: "HostConfig.PidsLimit", fieldCPU: "HostConfig.NanoCpus", fieldOOMScore: "HostConfig.OomScoreAdj",
			fieldOOMKill: "HostConfig.OomKillDisable", fieldDeviceRules: "HostConfig.DeviceCgroupRules",
			fieldSysctl: "HostConfig.Sysctls", fieldCwd: "Config.WorkingDir", fieldEnv: "Config.Env",
			fieldRestart: "HostConfig.RestartPolicy",
		}}
	s.Caps = dockerCaps(h.Privileged, h.CapAdd, h.CapDrop)
	s.UID, s.UIDKnown = dockerUser(d.Config.User)
	s.Namespaces["network"] = dockerNS(h.NetworkMode, "HostConfig.NetworkMode")
	s.Namespaces["pid"] = dockerNS(h.PidMode, "HostConfig.PidMode")
	s.Namespaces["ipc"] = dockerNS(h.IpcMode, "HostConfig.IpcMode")
	s.Namespaces["uts"] = dockerNS(h.UTSMode, "HostConfig.UTSMode")
	s.Namespaces["mount"] = Namespace{Mode: NSPrivate, Field: "HostConfig"}
	// An empty user or cgroup namespace mode is the daemon's default: no
	// user namespace unless it runs with --userns-remap, and the host's
	// cgroup namespace on cgroup v1 hosts and engines before 20.10.
	s.Namespaces["user"] = Namespace{Mode: NSHost, Field: "HostConfig.UsernsMode", Assumed: h.UsernsMode == ""}
	s.Namespaces["cgroup"] = Namespace{Mode: NSHost, Field: "HostConfig.CgroupnsMode", Assumed: h.CgroupnsMode == ""}
	if m := h.UsernsMode; m != "" && m != "host" { // Podman's keep-id, auto, private
		s.Namespaces["user"] = Namespace{Mode: NSPrivate, Field: "HostConfig.UsernsMode"}
	}
	if h.CgroupnsMode == "private" {
		s.Namespaces["cgroup"] = Namespace{Mode: NSPrivate, Field: "HostConfig.CgroupnsMode"}
	}
	rro := map[string]bool{}
	for _, m := range h.Mounts {
		if m.BindOptions != nil && m.BindOptions.ReadOnlyForceRecursive {
			rro[m.Target] = true
		}
	}
	for i, m := range d.Mounts {
		s.Mounts = append(s.Mounts, Mount{Type: m.Type, Source: m.Source, Destination: m.Destination, ReadOnly: !m.RW,
			Recursive: !m.RW && rro[m.Destination], Propagation: m.Propagation, Field: fmt.Sprintf("Mounts[%d]", i)})
	}
	s.Seccomp.Mode = SeccompEngineDefault
	s.AppArmor = d.AppArmorProfile
	s.SELinuxLabel = d.ProcessLabel
	systemPaths := true
	for _, o := range h.SecurityOpt {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			k, v, _ = strings.Cut(o, ":")
		}
		switch k {
		case "seccomp":
			if v == "unconfined" {
				s.Seccomp = Seccomp{Mode: SeccompNone}
			} else if sc, err := dockerSeccomp(v); err == nil {
				s.Seccomp = sc
			} else {
				return nil, &InputError{Target: target, Reason: "HostConfig.SecurityOpt: the seccomp profile is not valid JSON: " + err.Error()}
			}
		case "label":
			if v == "disable" {
				s.SELinuxDisabled = true
			}
		case "no-new-privileges":
			s.NoNewPrivileges = v == "" || v == "true"
		case "systempaths":
			systemPaths = v != "unconfined"
		}
	}
	switch {
	case h.Privileged:
		s.Seccomp = Seccomp{Mode: SeccompNone}
		s.AppArmor = "unconfined"
		s.MaskedPaths, s.ReadonlyPaths = []string{}, []string{}
		s.DeviceRules = []DeviceRule{{Allow: true, Type: "a", Major: -1, Minor: -1, Access: "rwm", Field: "HostConfig.Privileged"}}
		s.Mounts = append(s.Mounts, Mount{Type: "sysfs", Source: "sysfs", Destination: "/sys", Field: "HostConfig.Privileged"})
	case !systemPaths:
		s.MaskedPaths, s.ReadonlyPaths = []string{}, []string{}
		s.Fields[fieldMasked], s.Fields[fieldReadonly] = "HostConfig.SecurityOpt", "HostConfig.SecurityOpt"
	default:
		s.MaskedPaths, s.ReadonlyPaths = dockerMaskedPaths, dockerReadonlyPaths
		if h.MaskedPaths != nil {
			s.MaskedPaths = *h.MaskedPaths
		}
		if h.ReadonlyPaths != nil {
			s.ReadonlyPaths = *h.ReadonlyPaths
		}
	}
	s.ReadonlyRootfs = h.ReadonlyRootfs
	s.MemoryLimit, s.SwapLimit = h.Memory, h.MemorySwap
	if h.Memory > 0 && h.MemorySwap == 0 {
		s.SwapLimit = 2 * h.Memory // the engine's default: as much swap as memory
	}
	if h.PidsLimit != nil && *h.PidsLimit > 0 {
		s.PidsLimit = *h.PidsLimit
	}
	s.CPULimited = h.NanoCpus > 0 || h.CPUQuota > 0 || h.CpusetCpus != "" || h.CPUShares > 0 && h.CPUShares != 1024
	s.OOMScoreAdj = h.OomScoreAdj
	s.OOMKillDisable = h.OomKillDisable != nil && *h.OomKillDisable
	for i, r := range h.DeviceCgroupRules {
		rule, err := parseDeviceCgroupRule(r)
		if err != nil {
			return nil, &InputError{Target: target, Reason: fmt.Sprintf("HostConfig.DeviceCgroupRules[%d]: %v", i, err)}
		}
		rule.Field = fmt.Sprintf("HostConfig.DeviceCgroupRules[%d]", i)
		s.DeviceRules = append(s.DeviceRules, rule)
	}
	for i, dev := range h.Devices {
		s.Devices = append(s.Devices, Device{Path: dev.PathInContainer, HostPath: dev.PathOnHost, Major: -1, Minor: -1,
			Field: fmt.Sprintf("HostConfig.Devices[%d]", i)})
	}
	s.Sysctls = h.Sysctls
	s.Cwd = d.Config.WorkingDir
	s.Env = d.Config.Env
	for port, binds := range h.PortBindings {
		for _, b := range binds {
			s.Ports = append(s.Ports, Port{HostIP: b.HostIP, HostPort: b.HostPort, ContainerPort: port, Field: "HostConfig.PortBindings[" + strconv.Quote(port) + "]"})
		}
	}
	s.PublishAllPorts = h.PublishAllPorts
	s.Restart = RestartPolicy{Name: h.RestartPolicy.Name, MaxRetries: h.RestartPolicy.MaximumRetryCount}
	return s, nil
}

// dockerCaps computes the effective set the engine grants: its default set,
// minus CapDrop, plus CapAdd ("ALL" in either as the engine reads it).
func dockerCaps(privileged bool, add, drop []string) Caps {
	add, drop = capNames(add), capNames(drop)
	set := map[string]bool{}
	for _, c := range DockerDefaultCaps {
		set[c] = true
	}
	for _, c := range drop {
		if c == "ALL" {
			clear(set)
		}
		delete(set, c)
	}
	for _, c := range add {
		if c == "ALL" {
			for _, a := range AllCaps {
				set[a] = true
			}
		}
		if c != "ALL" {
			set[c] = true
		}
	}
	if privileged {
		for _, a := range AllCaps {
			set[a] = true
		}
	}
	var out []string
	for _, c := range AllCaps {
		if set[c] {
			out = append(out, c)
			delete(set, c)
		}
	}
	for c := range set { // names this table does not know yet
		out = append(out, c)
	}
	return Caps{Bounding: out, Effective: out, Permitted: out}
}

// dockerUser reads Config.User (user[:group]); a name other than root is
// taken as not root, since the image's passwd is not part of the input.
func dockerUser(u string) (uint32, bool) {
	name, _, _ := strings.Cut(u, ":")
	if name == "" || name == "root" {
		return 0, true
	}
	n, err := strconv.ParseUint(name, 10, 32)
	if err != nil {
		return 0, false
	}
	return uint32(n), true
}

func dockerNS(mode, field string) Namespace {
	switch {
	case mode == "host":
		return Namespace{Mode: NSHost, Field: field}
	case strings.HasPrefix(mode, "container:"):
		return Namespace{Mode: NSJoin, Path: mode, Field: field}
	}
	return Namespace{Mode: NSPrivate, Field: field}
}

// dockerSeccomp reads a profile in Docker's format, as the CLI inlines it
// into SecurityOpt.
func dockerSeccomp(profile string) (Seccomp, error) {
	var p struct {
		DefaultAction string `json:"defaultAction"`
		Syscalls      []struct {
			Name     string            `json:"name"`
			Names    []string          `json:"names"`
			Action   string            `json:"action"`
			Args     []json.RawMessage `json:"args"`
			Includes struct {
				Caps []string `json:"caps"`
			} `json:"includes"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal([]byte(profile), &p); err != nil {
		return Seccomp{}, err
	}
	sc := Seccomp{Mode: SeccompCustom, DefaultAction: p.DefaultAction}
	for _, r := range p.Syscalls {
		if r.Action != "SCMP_ACT_ALLOW" || len(r.Args) > 0 || len(r.Includes.Caps) > 0 {
			continue
		}
		if r.Name != "" {
			sc.Allowed = append(sc.Allowed, r.Name)
		}
		sc.Allowed = append(sc.Allowed, r.Names...)
	}
	return sc, nil
}

// parseDeviceCgroupRule reads "TYPE MAJOR:MINOR ACCESS" (c 1:3 mr, a *:* rwm).
func parseDeviceCgroupRule(r string) (DeviceRule, error) {
	f := strings.Fields(r)
	if len(f) != 3 || len(f[0]) != 1 || !strings.Contains("abc", f[0]) {
		return DeviceRule{}, fmt.Errorf("%q is not TYPE MAJOR:MINOR ACCESS (like c 1:3 rwm)", r)
	}
	num := func(s string) (int64, error) {
		if s == "*" {
			return -1, nil
		}
		return strconv.ParseInt(s, 10, 64)
	}
	maj, min, ok := strings.Cut(f[1], ":")
	a, err1 := num(maj)
	b, err2 := num(min)
	if !ok || err1 != nil || err2 != nil {
		return DeviceRule{}, fmt.Errorf("%q: MAJOR:MINOR must be numbers or *", r)
	}
	return DeviceRule{Allow: true, Type: f[0], Major: a, Minor: b, Access: f[2]}, nil
}
