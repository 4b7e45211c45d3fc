package audit

import (
	"fmt"
	"slices"
	"strings"
)

// Privileges: the privileged flag, capabilities and the user the process
// runs as.

func init() {
	register(
		&Rule{ID: "GB101", Name: "privileged", Severity: Critical, Title: "Privileged container",
			Field: "HostConfig.Privileged; OCI: CAP_SYS_ADMIN with no seccomp and all devices or no masked paths",
			Why:   "A privileged container has every capability, every device, no seccomp, no AppArmor and a writable /sys: mounting the host's disk or loading a kernel module is one command away.",
			Fix:   "Remove --privileged (privileged: true) and add only the capabilities and devices the workload needs.",
			Refs:  []string{"CIS Docker 5.4"},
			check: checkPrivileged},
		&Rule{ID: "GB102", Name: "all-capabilities", Severity: Critical, Title: "All or nearly all capabilities", Implied: true,
			Field: "process.capabilities; HostConfig.CapAdd",
			Why:   "With (nearly) every capability the process is root for the kernel: only namespaces stand between it and the host.",
			Fix:   "Drop all capabilities (--cap-drop ALL) and add back the few the workload needs.",
			Refs:  []string{"CIS Docker 5.3"},
			check: checkAllCaps},
		capRule("GB103", "cap-sys-admin", "SYS_ADMIN", Critical, "mount, unshare, BPF, namespaces and dozens of other kernel interfaces: the classic container breakout capability (cgroup release_agent, mounting host devices).", "CIS Docker 5.3", "CVE-2022-0492"),
		capRule("GB104", "cap-sys-module", "SYS_MODULE", Critical, "loading kernel modules runs any code in the host kernel.", "CIS Docker 5.3"),
		capRule("GB105", "cap-sys-rawio", "SYS_RAWIO", Critical, "raw I/O ports and /dev/mem access read and write host memory.", "CIS Docker 5.3"),
		capRule("GB106", "cap-sys-ptrace", "SYS_PTRACE", High, "tracing processes reads and changes their memory; with the host PID namespace it reaches host processes.", "CIS Docker 5.3"),
		capRule("GB107", "cap-dac-read-search", "DAC_READ_SEARCH", High, "open_by_handle_at opens files by handle outside the container's root (the Shocker exploit).", "CIS Docker 5.3"),
		capRule("GB108", "cap-net-admin", "NET_ADMIN", High, "reconfigures interfaces, routes and firewall rules; with the host network it controls the host's.", "CIS Docker 5.3"),
		capRule("GB109", "cap-bpf", "BPF", High, "loads BPF programs and maps, a large kernel attack surface and a way to read kernel memory.", "CIS Docker 5.3"),
		capRule("GB110", "cap-perfmon", "PERFMON", Medium, "perf_event_open and BPF tracing expose kernel addresses and other processes' activity.", "CIS Docker 5.3"),
		capRule("GB111", "cap-sys-boot", "SYS_BOOT", High, "reboot and kexec_load can restart the host into another kernel.", "CIS Docker 5.3"),
		capRule("GB112", "cap-mac-admin", "MAC_ADMIN", High, "changes the mandatory access control policy (AppArmor, SELinux, Smack) that confines containers.", "CIS Docker 5.3"),
		capRule("GB113", "cap-mac-override", "MAC_OVERRIDE", High, "bypasses the mandatory access control policy.", "CIS Docker 5.3"),
		capRule("GB114", "cap-sys-time", "SYS_TIME", Medium, "sets the host's clock (time is not namespaced for settimeofday), breaking TLS and logs.", "CIS Docker 5.3"),
		capRule("GB115", "cap-syslog", "SYSLOG", Medium, "reads and clears the kernel log, which exposes kernel addresses.", "CIS Docker 5.3"),
		&Rule{ID: "GB116", Name: "cap-beyond-default", Severity: Medium, Title: "Capabilities beyond Docker's default set", Implied: true,
			Field: "process.capabilities; HostConfig.CapAdd",
			Why:   "Each capability outside Docker's default set opens kernel interfaces the default profile keeps closed.",
			Fix:   "Remove the extra capabilities, or document why each is needed.",
			Refs:  []string{"CIS Docker 5.3"},
			check: checkBeyondDefault},
		&Rule{ID: "GB117", Name: "cap-net-raw", Severity: Low, Title: "NET_RAW kept", Implied: true,
			Field: "process.capabilities; HostConfig.CapDrop",
			Why:   "Raw sockets allow ARP and DNS spoofing on the container network and have carried kernel bugs; few workloads need them (ping works without).",
			Fix:   "Drop NET_RAW (--cap-drop NET_RAW, or --cap-drop ALL).",
			Refs:  []string{"CIS Docker 5.3", "CVE-2020-14386"},
			check: func(s *Subject) []Hit { return capHit(s, "NET_RAW") }},
		&Rule{ID: "GB118", Name: "ambient-capabilities", Severity: High, Title: "Ambient capabilities set",
			Field: "process.capabilities.ambient",
			Why:   "Ambient capabilities survive execve into any program, so every binary the process runs holds them, not only those meant to.",
			Fix:   "Leave process.capabilities.ambient empty.",
			check: func(s *Subject) []Hit { return setHit(s, "ambient", s.Caps.Ambient) }},
		&Rule{ID: "GB119", Name: "inheritable-capabilities", Severity: Medium, Title: "Inheritable capabilities set",
			Field: "process.capabilities.inheritable",
			Why:   "Inheritable capabilities combine with file capabilities to grant privileges to programs in the image (the CVE-2022-24769 class).",
			Fix:   "Leave process.capabilities.inheritable empty.",
			Refs:  []string{"CVE-2022-24769"},
			check: func(s *Subject) []Hit { return setHit(s, "inheritable", s.Caps.Inheritable) }},
		&Rule{ID: "GB120", Name: "host-root-with-capabilities", Severity: Medium, Title: "Runs as host root with capabilities",
			Field: "process.user.uid, linux.uidMappings; Config.User",
			Why:   "The process is uid 0 on the host and holds capabilities: files owned by root anywhere it can reach are its own, and any escape lands as root.",
			Fix:   "Run as an unprivileged user (--user 1000, process.user.uid), or in a user namespace that maps root to an unprivileged host id.",
			Refs:  []string{"CIS Docker 4.1"},
			check: func(s *Subject) []Hit { return hostRootHit(s, true) }},
		&Rule{ID: "GB121", Name: "host-root", Severity: Low, Title: "Runs as host root without capabilities",
			Field: "process.user.uid, linux.uidMappings; Config.User",
			Why:   "Without capabilities uid 0 gains no kernel privilege, but root-owned files the process can reach are its own and an escape lands as uid 0. golem-box maps the invoking user to itself, so this is what running golem-box as root gives.",
			Fix:   "Run as an unprivileged user.",
			Refs:  []string{"CIS Docker 4.1"},
			check: func(s *Subject) []Hit { return hostRootHit(s, false) }},
		&Rule{ID: "GB122", Name: "userns-maps-host-root", Severity: High, Title: "User namespace maps a range containing host root",
			Field: "linux.uidMappings",
			Why:   "A mapping that covers host uid 0 and other ids (0 0 65536) gives the user namespace no isolation: container root is host root for every file, with all capabilities in the namespace.",
			Fix:   "Map container ids to a subordinate range that excludes 0 (0 100000 65536), or map only the invoking user.",
			check: checkWideRootMapping},
	)
}

// named are the capabilities with a rule of their own (capRule), which
// GB116 leaves to them.
var named []string

// capRule builds a rule for one capability.
func capRule(id, name, capName string, sev Severity, gain string, refs ...string) *Rule {
	named = append(named, capName)
	return &Rule{ID: id, Name: name, Severity: sev, Title: "Capability " + capName, Implied: true,
		Field: "process.capabilities; HostConfig.CapAdd",
		Why:   "CAP_" + capName + " " + gain,
		Fix:   fmt.Sprintf("Remove %s (drop it from process.capabilities, or from --cap-add); use --cap-drop ALL and add back only what is needed.", capName),
		Refs:  refs,
		check: func(s *Subject) []Hit { return capHit(s, capName) }}
}

// capField names the first set holding c, in the subject's syntax.
func capField(s *Subject, c string) string {
	if s.Format == FormatDocker {
		if slices.Contains(DockerDefaultCaps, c) && !s.Privileged {
			return "HostConfig.CapDrop" // granted by default, not dropped
		}
		return s.field(fieldCaps)
	}
	for _, set := range []struct {
		name string
		caps []string
	}{{"bounding", s.Caps.Bounding}, {"effective", s.Caps.Effective}, {"permitted", s.Caps.Permitted}} {
		if slices.Contains(set.caps, c) {
			return "process.capabilities." + set.name
		}
	}
	return s.field(fieldCaps)
}

func capHit(s *Subject, c string) []Hit {
	if !s.Caps.has(c) {
		return nil
	}
	how := "is granted"
	if s.Format == FormatDocker && slices.Contains(DockerDefaultCaps, c) {
		how = "is in Docker's default set and was not dropped"
	}
	return hit(capField(s, c), "CAP_%s %s", c, how)
}

func setHit(s *Subject, set string, caps []string) []Hit {
	if len(caps) == 0 {
		return nil
	}
	return hit("process.capabilities."+set, "the %s set holds %s", set, quoteList(caps))
}

func checkPrivileged(s *Subject) []Hit {
	if s.Privileged {
		return hit(s.field(fieldPrivileged), "the container is privileged")
	}
	if s.Format != FormatOCI || !s.Caps.has("SYS_ADMIN") || s.Seccomp.Mode != SeccompNone {
		return nil
	}
	var also []string
	if len(s.MaskedPaths) == 0 {
		also = append(also, "no masked paths")
	}
	for _, r := range s.DeviceRules {
		if allDevices(r) {
			also = append(also, "every device allowed")
			break
		}
	}
	if len(also) == 0 {
		return nil
	}
	return hit(capField(s, "SYS_ADMIN"), "privileged-equivalent: CAP_SYS_ADMIN, no seccomp filter and %s", quoteList(also))
}

func checkAllCaps(s *Subject) []Hit {
	n := 0
	for _, c := range AllCaps {
		if s.Caps.has(c) {
			n++
		}
	}
	// 38 is every capability before PERFMON, BPF and CHECKPOINT_RESTORE
	// (Linux 5.8), the "all" of older specs.
	if n < 38 {
		return nil
	}
	return hit(s.field(fieldCaps), "%d of the %d capabilities are granted", n, len(AllCaps))
}

func checkBeyondDefault(s *Subject) []Hit {
	var extra []string
	for _, c := range s.Caps.all() {
		if !slices.Contains(DockerDefaultCaps, c) && !slices.Contains(named, c) {
			extra = append(extra, "CAP_"+c)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	return hit(s.field(fieldCaps), "outside Docker's default set: %s", quoteList(extra))
}

// hostUID returns the host uid the process runs as, and whether it is known.
func hostUID(s *Subject) (uint32, bool) {
	if !s.UIDKnown {
		return 0, false
	}
	if s.Namespaces["user"].Mode == NSHost {
		return s.UID, true
	}
	for _, m := range s.UIDMappings {
		if s.UID >= m.ContainerID && s.UID-m.ContainerID < m.Size {
			return m.HostID + (s.UID - m.ContainerID), true
		}
	}
	return 0, false // unmapped: the overflow uid, not root
}

func hostRootHit(s *Subject, withCaps bool) []Hit {
	uid, ok := hostUID(s)
	if !ok || uid != 0 {
		return nil
	}
	caps := s.Caps.all()
	if withCaps != (len(caps) > 0) {
		return nil
	}
	how := "with no user namespace"
	field := s.field(fieldUser)
	if s.Namespaces["user"].Mode != NSHost {
		how, field = "mapped to host uid 0 by the user namespace", s.field(fieldUIDMap)
	} else if s.Namespaces["user"].Assumed {
		how = "with no user namespace (unless the daemon runs with --userns-remap)"
	}
	user := fmt.Sprintf("uid %d", s.UID)
	if s.Format == FormatDocker && s.UID == 0 {
		user = "root (Config.User is empty or root)"
	}
	if !withCaps {
		return hit(field, "the process runs as %s, %s, without capabilities", user, how)
	}
	return hit(field, "the process runs as %s, %s, holding %d capabilities (%s)", user, how, len(caps), strings.Join(caps, ", "))
}

func checkWideRootMapping(s *Subject) []Hit {
	if s.Namespaces["user"].Mode == NSHost {
		return nil
	}
	for i, m := range s.UIDMappings {
		if m.HostID == 0 && m.Size > 1 {
			return hit(fmt.Sprintf("%s[%d]", s.field(fieldUIDMap), i), "container ids %d-%d map to host ids 0-%d, host root included",
				m.ContainerID, m.ContainerID+m.Size-1, m.Size-1)
		}
	}
	return nil
}
