package audit

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Resources, devices and kernel parameters.

var (
	// dangerousDevices give raw access to memory, disks or the kernel.
	dangerousDevices = []string{"/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/fuse", "/dev/kvm", "/dev/vhost-net", "/dev/net/tun", "/dev/dri", "/dev/nvram", "/dev/uinput"}
	diskPrefixes     = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/dm-", "/dev/mapper/", "/dev/loop", "/dev/md", "/dev/mmcblk", "/dev/disk/", "/dev/cpu/"}
	// standardDevices are what every runtime creates anyway.
	standardDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/console", "/dev/ptmx"}
	// safeSysctls are namespaced and harmless (Kubernetes' safe set).
	safeSysctls = []string{"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_local_reserved_ports",
		"net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
		"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
		"net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}
)

func init() {
	register(
		&Rule{ID: "GB501", Name: "no-memory-limit", Severity: Medium, Title: "No memory limit",
			Field: "linux.resources.memory.limit; HostConfig.Memory",
			Why:   "Without a limit one container can take the host's memory and have the kernel kill other workloads.",
			Fix:   "Set a memory limit (--memory 1g, linux.resources.memory.limit).",
			Refs:  []string{"CIS Docker 5.10"},
			check: func(s *Subject) []Hit {
				if s.MemoryLimit > 0 {
					return nil
				}
				return hit(s.field(fieldMemory), "memory is not limited")
			}},
		&Rule{ID: "GB502", Name: "no-pids-limit", Severity: Medium, Title: "No process limit",
			Field: "linux.resources.pids.limit; HostConfig.PidsLimit",
			Why:   "Without a pids limit a fork bomb exhausts the host's process table.",
			Fix:   "Set a pids limit (--pids-limit 512, linux.resources.pids.limit).",
			Refs:  []string{"CIS Docker 5.28"},
			check: func(s *Subject) []Hit {
				if s.PidsLimit > 0 {
					return nil
				}
				return hit(s.field(fieldPids), "the number of processes is not limited")
			}},
		&Rule{ID: "GB503", Name: "no-cpu-limit", Severity: Low, Title: "No CPU limit",
			Field: "linux.resources.cpu; HostConfig.NanoCpus, CpuQuota, CpuShares, CpusetCpus",
			Why:   "Without a quota, weight or CPU set the container can starve the host and its neighbours.",
			Fix:   "Set a CPU limit (--cpus 2, linux.resources.cpu.quota and period).",
			Refs:  []string{"CIS Docker 5.11"},
			check: func(s *Subject) []Hit {
				if s.CPULimited {
					return nil
				}
				return hit(s.field(fieldCPU), "CPU time is not limited")
			}},
		&Rule{ID: "GB504", Name: "swap-unlimited", Severity: Low, Title: "Memory limited but swap unlimited",
			Field: "linux.resources.memory.swap; HostConfig.MemorySwap",
			Why:   "With swap unlimited the memory limit only moves the pressure to the host's swap and disk.",
			Fix:   "Set swap (memory plus swap) equal to the memory limit (--memory-swap equal to --memory).",
			check: func(s *Subject) []Hit {
				if s.MemoryLimit <= 0 || s.SwapLimit > 0 {
					return nil
				}
				if s.SwapLimit == -1 {
					return hit(s.field(fieldSwap), "swap is unlimited (-1)")
				}
				return hit(s.field(fieldSwap), "swap is not set: the runtime leaves it as the host allows")
			}},
		&Rule{ID: "GB505", Name: "negative-oom-score", Severity: Medium, Title: "Negative OOM score adjustment",
			Field: "process.oomScoreAdj; HostConfig.OomScoreAdj",
			Why:   "A negative score makes the kernel kill host processes before this container when memory runs out.",
			Fix:   "Leave oomScoreAdj at 0 or above.",
			check: func(s *Subject) []Hit {
				if s.OOMScoreAdj >= 0 {
					return nil
				}
				return hit(s.field(fieldOOMScore), "oomScoreAdj is %d", s.OOMScoreAdj)
			}},
		&Rule{ID: "GB506", Name: "oom-killer-disabled", Severity: Medium, Title: "OOM killer disabled",
			Field: "linux.resources.memory.disableOOMKiller; HostConfig.OomKillDisable",
			Why:   "With the OOM killer off, a container at its limit hangs instead of being killed; without a limit it can hang the host.",
			Fix:   "Leave the OOM killer on.",
			check: func(s *Subject) []Hit {
				if !s.OOMKillDisable {
					return nil
				}
				return hit(s.field(fieldOOMKill), "the OOM killer is disabled")
			}},
		&Rule{ID: "GB601", Name: "all-devices-allowed", Severity: High, Title: "Every device allowed", Implied: true,
			Field: "linux.resources.devices; HostConfig.DeviceCgroupRules",
			Why:   "The device cgroup is what keeps a process that can mknod or reach /dev from reading the host's disks and memory; allowing every device removes it.",
			Fix:   "Deny all devices first ({allow: false, access: rwm}) and allow only those needed.",
			Refs:  []string{"CIS Docker 5.17"},
			check: func(s *Subject) []Hit {
				for _, r := range s.DeviceRules {
					if allDevices(r) {
						return hit(r.Field, "every device is allowed (%s)", describeRule(r))
					}
				}
				return nil
			}},
		&Rule{ID: "GB602", Name: "block-devices-allowed", Severity: High, Title: "Block devices allowed",
			Field: "linux.resources.devices; HostConfig.DeviceCgroupRules",
			Why:   "Access to block devices reads and writes the host's disks below every filesystem permission.",
			Fix:   "Do not allow block devices; give the container a volume instead.",
			Refs:  []string{"CIS Docker 5.17"},
			check: func(s *Subject) []Hit {
				var out []Hit
				for _, r := range s.DeviceRules {
					if r.Allow && r.Type == "b" {
						out = append(out, Hit{Field: r.Field, Message: "block devices are allowed (" + describeRule(r) + ")"})
					}
				}
				return out
			}},
		&Rule{ID: "GB603", Name: "dangerous-device", Severity: High, Title: "Dangerous host device exposed",
			Field: "linux.devices, linux.resources.devices; HostConfig.Devices, DeviceCgroupRules",
			Why:   "Disks, /dev/mem, /dev/kmsg, /dev/kvm, FUSE and TUN give direct paths to host data, kernel memory or kernel attack surface.",
			Fix:   "Remove the device; if the workload truly needs it, run it in a VM.",
			Refs:  []string{"CIS Docker 5.17"},
			check: checkDangerousDevices},
		&Rule{ID: "GB604", Name: "host-device", Severity: Low, Title: "Host device exposed",
			Field: "linux.devices; HostConfig.Devices",
			Why:   "Each host device in the container is kernel driver code reachable from it.",
			Fix:   "Pass only the devices the workload needs, read-only where it can be.",
			Refs:  []string{"CIS Docker 5.17"},
			check: func(s *Subject) []Hit {
				var out []Hit
				for _, d := range s.Devices {
					p := devicePath(d)
					if !dangerousDevice(p) && !slices.Contains(standardDevices, p) && d.Type != "b" {
						out = append(out, Hit{Field: d.Field, Message: "host device " + p + " is exposed"})
					}
				}
				return out
			}},
		&Rule{ID: "GB701", Name: "host-sysctl", Severity: High, Title: "Sysctl that is not namespaced",
			Field: "linux.sysctl; HostConfig.Sysctls",
			Why:   "A sysctl outside the ipc, network and mqueue namespaces changes the whole host (vm.*, kernel.core_pattern runs a program as host root).",
			Fix:   "Remove it; set host-wide sysctls on the host.",
			check: sysctlCheck(func(s *Subject, k string) string {
				if namespacedSysctl(k) {
					return ""
				}
				return "is not namespaced: it changes the host"
			})},
		&Rule{ID: "GB702", Name: "net-sysctl-host-network", Severity: High, Title: "Network sysctl with the host network",
			Field: "linux.sysctl; HostConfig.Sysctls with the host network",
			Why:   "net.* sysctls are per network namespace; in the host's they change the host's network stack.",
			Fix:   "Give the container its own network namespace, or set the sysctl on the host.",
			check: sysctlCheck(func(s *Subject, k string) string {
				if strings.HasPrefix(k, "net.") && s.Namespaces["network"].Mode != NSPrivate {
					return "applies to the host's network namespace"
				}
				return ""
			})},
		&Rule{ID: "GB703", Name: "unsafe-sysctl", Severity: Low, Title: "Namespaced sysctl outside the safe set",
			Field: "linux.sysctl; HostConfig.Sysctls",
			Why:   "Namespaced sysctls outside Kubernetes' safe set can still consume host resources or weaken the network stack (net.ipv4.conf.all.route_localnet, kernel.shmmax).",
			Fix:   "Keep to the safe set, or document why this one is needed.",
			check: sysctlCheck(func(s *Subject, k string) string {
				if !namespacedSysctl(k) || slices.Contains(safeSysctls, k) ||
					strings.HasPrefix(k, "net.") && s.Namespaces["network"].Mode != NSPrivate {
					return ""
				}
				return "is outside the safe set"
			})},
	)
}

func allDevices(r DeviceRule) bool {
	return r.Allow && r.Type == "a" && r.Major == -1 && r.Minor == -1
}

func describeRule(r DeviceRule) string {
	n := func(v int64) string {
		if v < 0 {
			return "*"
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%s %s:%s %s", r.Type, n(r.Major), n(r.Minor), r.Access)
}

func devicePath(d Device) string {
	if d.HostPath != "" {
		return path.Clean(d.HostPath)
	}
	return path.Clean(d.Path)
}

func dangerousDevice(p string) bool {
	for _, d := range dangerousDevices {
		if under(p, d) {
			return true
		}
	}
	for _, pre := range diskPrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// memoryDevices are mem (1:1), kmem (1:2) and port (1:4).
func memoryDevice(major, minor int64) bool {
	return major == 1 && (minor == 1 || minor == 2 || minor == 4)
}

func checkDangerousDevices(s *Subject) []Hit {
	var out []Hit
	for _, d := range s.Devices {
		p := devicePath(d)
		switch {
		case dangerousDevice(p):
			out = append(out, Hit{Field: d.Field, Message: "host device " + p + " is exposed"})
		case d.Type == "b":
			out = append(out, Hit{Field: d.Field, Message: fmt.Sprintf("block device %s (%d:%d) is created", p, d.Major, d.Minor)})
		case (d.Type == "c" || d.Type == "u") && memoryDevice(d.Major, d.Minor):
			out = append(out, Hit{Field: d.Field, Message: fmt.Sprintf("memory device %s (%d:%d) is created", p, d.Major, d.Minor)})
		}
	}
	for _, r := range s.DeviceRules {
		if r.Allow && (r.Type == "c" || r.Type == "a") && memoryDevice(r.Major, r.Minor) {
			out = append(out, Hit{Field: r.Field, Message: "host memory is allowed (" + describeRule(r) + ")"})
		}
	}
	return out
}

// namespacedSysctl reports whether the kernel namespaces k (ipc, network,
// mqueue, uts).
func namespacedSysctl(k string) bool {
	switch k {
	case "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
		"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.hostname", "kernel.domainname":
		return true
	}
	return strings.HasPrefix(k, "fs.mqueue.") || strings.HasPrefix(k, "net.")
}

func sysctlCheck(bad func(s *Subject, k string) string) func(*Subject) []Hit {
	return func(s *Subject) []Hit {
		keys := make([]string, 0, len(s.Sysctls))
		for k := range s.Sysctls {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out []Hit
		for _, k := range keys {
			if why := bad(s, k); why != "" {
				out = append(out, Hit{Field: s.field(fieldSysctl) + "[" + k + "]", Message: fmt.Sprintf("%s=%s %s", k, s.Sysctls[k], why)})
			}
		}
		return out
	}
}
