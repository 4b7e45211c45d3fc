package audit

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Mounts: what of the host the container sees, and how the kernel's own
// filesystems are guarded.

// The host paths that the bind rules look for.
var (
	runtimeSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
		"/var/run/containerd/containerd.sock", "/run/crio/crio.sock", "/var/run/crio/crio.sock",
		"/run/podman/podman.sock", "/run/buildkit/buildkitd.sock", "/run/k3s/containerd/containerd.sock"}
	runtimeState = []string{"/var/lib/docker", "/var/lib/containerd", "/var/lib/containers", "/var/lib/kubelet",
		"/run/containerd", "/run/runc", "/run/crun"}
	etcSecrets = []string{"/etc", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/pam.d", "/etc/security", "/etc/cron.d", "/etc/crontab", "/etc/systemd",
		"/etc/docker", "/etc/containerd", "/etc/kubernetes"}
	systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/var", "/usr/local"}
	bootDirs   = []string{"/boot", "/lib/modules", "/usr/lib/modules", "/efi"}
	credDirs   = []string{".ssh", ".aws", ".docker", ".kube", ".gnupg", ".azure", ".netrc", ".git-credentials", ".npmrc", ".pypirc", "gcloud"}
)

func init() {
	register(
		bindRule("GB301", "host-root-bind", Critical, "Host root filesystem bound", "The whole host filesystem is visible (and, unless read-only, writable): keys, the engine's socket and state, other users' files.",
			"Bind only the directories the workload needs.", false, func(src string) bool { return src == "/" }, "CIS Docker 5.5"),
		bindRule("GB302", "runtime-socket-bind", Critical, "Container runtime socket bound", "Whoever talks to the Docker, containerd, CRI-O or Podman socket can start a privileged container with the host's root bound: this is root on the host.",
			"Never bind a runtime socket into a container; use a narrowly scoped API proxy if the workload must start containers.", false, func(src string) bool {
				for _, s := range runtimeSockets {
					if src != "/" && under(s, src) {
						return true
					}
				}
				return strings.HasSuffix(src, "/docker.sock") || strings.HasSuffix(src, "/containerd.sock")
			}, "CIS Docker 5.31"),
		bindRule("GB303", "runtime-state-bind", High, "Container runtime state bound", "The engine's state and configuration hold every container's filesystem, secrets and the runtime binaries a host process executes (CVE-2019-5736 class).",
			"Do not bind the engine's state directories into a container.", false, anyUnder(runtimeState), "CIS Docker 5.5"),
		bindRule("GB304", "etc-bind", High, "Host /etc bound", "The host's /etc holds password hashes, sudoers, SSH host keys and service configuration; writable, it gives root on the next login or boot.",
			"Bind only the single files needed (resolv.conf, a CA bundle), read-only.", false, anyUnder(etcSecrets), "CIS Docker 5.5"),
		bindRule("GB305", "proc-sys-bind", High, "Host /proc or /sys bound", "The host's /proc and /sys expose every process, kernel tunables (/proc/sys, /proc/sysrq-trigger) and hardware: none of the masking that the container's own /proc and /sys get applies.",
			"Let the runtime mount the container's own /proc and /sys; never bind the host's.", false, func(src string) bool {
				return src != "/" && (under("/proc", src) || under(src, "/proc") || under("/sys", src) || under(src, "/sys"))
			}, "CIS Docker 5.5"),
		bindRule("GB306", "dev-bind", High, "Host /dev bound", "The host's /dev holds the disks, memory (/dev/mem) and terminals: the device cgroup is the only guard left.",
			"Pass the single devices needed with --device, never the whole /dev.", false, func(src string) bool {
				return src != "/" && (under("/dev", src) || under(src, "/dev"))
			}, "CIS Docker 5.5"),
		bindRule("GB307", "boot-bind-writable", High, "Host /boot or kernel modules bound writable", "A writable /boot or /lib/modules lets the container replace the kernel, its initramfs or a module the host loads next.",
			"Bind them read-only, or not at all.", true, anyUnder(bootDirs), "CIS Docker 5.5"),
		bindRule("GB308", "home-credentials-bind", Medium, "Home directory or credentials bound", "Whole home directories and credential directories (.ssh, .aws, .docker, .kube) hand the user's keys and tokens to the workload.",
			"Bind the project directory, not the home directory; pass one credential as a read-only file if it is needed.", false, func(src string) bool {
				if src == "/root" || src == "/home" || path.Dir(src) == "/home" {
					return true
				}
				for _, d := range credDirs {
					if path.Base(src) == d {
						return true
					}
				}
				return false
			}, "CIS Docker 5.5"),
		bindRule("GB309", "system-dir-bind-writable", High, "Host system directory bound writable", "A writable /usr, /lib, /bin or /var lets the container replace programs and libraries that host processes run as root.",
			"Bind system directories read-only (golem-box's image host does), or not at all.", true, func(src string) bool {
				return slices.Contains(systemDirs, src)
			}, "CIS Docker 5.5"),
		&Rule{ID: "GB310", Name: "readonly-not-recursive", Severity: Low, Title: "Read-only bind is not recursive",
			Field: "mounts[].options (ro without rro); Mounts[].RW with HostConfig.Mounts[].BindOptions",
			Why:   "A plain read-only bind leaves the mounts below its source writable (a read-only /data with /data/cache mounted below still writes /data/cache). It matters only when the source has submounts, which the audit cannot see.",
			Fix:   "Use recursive read-only binds: the rro option (runc 1.1+, crun 1.4+, Linux 5.12+), or --mount ...,readonly,bind-recursive=readonly (Docker 25+, the default there).",
			check: checkNonRecursive},
		&Rule{ID: "GB311", Name: "shared-propagation", Severity: Medium, Title: "Shared mount propagation",
			Field: "mounts[].options, linux.rootfsPropagation; Mounts[].Propagation",
			Why:   "With shared propagation, mounts the container makes below the bind appear on the host: a way to plant mounts over host paths.",
			Fix:   "Use private (rprivate) or, when host mounts must be seen inside, slave (rslave) propagation.",
			Refs:  []string{"CIS Docker 5.19"},
			check: checkShared},
		&Rule{ID: "GB312", Name: "sysfs-writable", Severity: High, Title: "sysfs mounted writable", Implied: true,
			Field: "mounts[] of type sysfs",
			Why:   "A writable /sys reaches kernel and device settings (uevent_helper runs a program as host root).",
			Fix:   "Mount sysfs with the ro option.",
			check: checkKernelFS("sysfs")},
		&Rule{ID: "GB313", Name: "cgroupfs-writable", Severity: Medium, Title: "cgroup filesystem mounted writable", Implied: true,
			Field: "mounts[] of type cgroup or cgroup2",
			Why:   "A writable cgroup filesystem lets the container change its own limits and, on cgroup v1, set release_agent: a program run as host root (CVE-2022-0492).",
			Fix:   "Mount the cgroup filesystem read-only.",
			Refs:  []string{"CVE-2022-0492"},
			check: checkKernelFS("cgroup")},
		&Rule{ID: "GB314", Name: "masked-paths-missing", Severity: Medium, Title: "Kernel files in /proc and /sys not masked", Implied: true,
			Field: "linux.maskedPaths; HostConfig.MaskedPaths, SecurityOpt systempaths",
			Why:   "/proc/kcore, /proc/keys, /proc/timer_list, /sys/firmware and their kind leak kernel memory, keys and addresses that help an exploit.",
			Fix:   "Mask at least Docker's default list (remove --security-opt systempaths=unconfined; list them in linux.maskedPaths).",
			check: func(s *Subject) []Hit {
				return missingPaths(s, fieldMasked, s.MaskedPaths, dockerMaskedPaths, "masked")
			}},
		&Rule{ID: "GB315", Name: "readonly-paths-missing", Severity: Medium, Title: "Kernel tunables in /proc writable", Implied: true,
			Field: "linux.readonlyPaths; HostConfig.ReadonlyPaths, SecurityOpt systempaths",
			Why:   "/proc/sys and /proc/sysrq-trigger change host-wide kernel settings or reboot the host when writable.",
			Fix:   "Make at least /proc/bus, /proc/fs, /proc/irq, /proc/sys and /proc/sysrq-trigger read-only (linux.readonlyPaths).",
			check: func(s *Subject) []Hit {
				return missingPaths(s, fieldReadonly, s.ReadonlyPaths, dockerReadonlyPaths, "read-only")
			}},
		&Rule{ID: "GB316", Name: "writable-rootfs", Severity: Low, Title: "Root filesystem writable",
			Field: "root.readonly; HostConfig.ReadonlyRootfs",
			Why:   "A writable root lets a compromised process replace the programs the container runs next and persist there.",
			Fix:   "Make the root read-only (--read-only, root.readonly) and give writable tmpfs or volumes where the workload writes.",
			Refs:  []string{"CIS Docker 5.12"},
			check: func(s *Subject) []Hit {
				if s.ReadonlyRootfs {
					return nil
				}
				return hit(s.field(fieldRootfs), "the root filesystem is writable")
			}},
	)
}

// bindRule builds a rule over the sources of bind mounts.
func bindRule(id, name string, sev Severity, title, why, fix string, writableOnly bool, match func(src string) bool, refs ...string) *Rule {
	field := "mounts[].source; Mounts[].Source"
	if writableOnly {
		field += " with the mount writable"
	}
	return &Rule{ID: id, Name: name, Severity: sev, Title: title, Field: field,
		Why: why, Fix: fix, Refs: refs,
		check: func(s *Subject) []Hit {
			var out []Hit
			for _, m := range s.Mounts {
				if !m.bind() || writableOnly && m.ReadOnly || !match(path.Clean(m.Source)) {
					continue
				}
				mode := "writable"
				if m.ReadOnly {
					mode = "read-only"
				}
				out = append(out, Hit{Field: m.Field, Message: fmt.Sprintf("host %s is bound at %s, %s", m.Source, m.Destination, mode)})
			}
			return out
		}}
}

// anyUnder matches a source that is one of dirs, or shows one of them.
func anyUnder(dirs []string) func(string) bool {
	return func(src string) bool {
		if src == "/" {
			return false // GB301 reports the whole host
		}
		for _, d := range dirs {
			if under(d, src) {
				return true
			}
		}
		return false
	}
}

func checkNonRecursive(s *Subject) []Hit {
	var out []Hit
	for _, m := range s.Mounts {
		if m.bind() && m.ReadOnly && !m.Recursive {
			how := "ro without rro"
			if s.Format == FormatDocker {
				how = "read-only without bind-recursive=readonly (recursive by default only from Docker 25)"
			}
			out = append(out, Hit{Field: m.Field, Message: fmt.Sprintf("%s at %s is %s", m.Source, m.Destination, how)})
		}
	}
	return out
}

func checkShared(s *Subject) []Hit {
	var out []Hit
	if p := s.RootfsPropagation; p == "shared" || p == "rshared" {
		out = append(out, Hit{Field: s.field(fieldPropagation), Message: "the root's propagation is " + p})
	}
	for _, m := range s.Mounts {
		if m.Propagation == "shared" || m.Propagation == "rshared" {
			out = append(out, Hit{Field: m.Field, Message: fmt.Sprintf("%s at %s has %s propagation", m.Source, m.Destination, m.Propagation)})
		}
	}
	return out
}

func checkKernelFS(kind string) func(*Subject) []Hit {
	return func(s *Subject) []Hit {
		var out []Hit
		for _, m := range s.Mounts {
			if strings.HasPrefix(m.Type, kind) && !m.ReadOnly {
				out = append(out, Hit{Field: m.Field, Message: fmt.Sprintf("%s at %s is mounted without ro", m.Type, m.Destination)})
			}
		}
		return out
	}
}

func missingPaths(s *Subject, key string, have, want []string, what string) []Hit {
	var missing []string
	for _, p := range want {
		if !slices.Contains(have, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return hit(s.field(key), "not %s: %s", what, quoteList(missing))
}
